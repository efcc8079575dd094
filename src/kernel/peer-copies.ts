import { dirname, sep } from 'node:path';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { DuplicatePeerPackageError } from '../errors/duplicate-peer-package.error';
import type { ServerLogger } from './server-logger';

/** The peers whose state lives in the module (tsyringe's type registry, class-transformer's metadata). */
const PEERS = ['tsyringe', 'class-validator', 'class-transformer'] as const;

/** A peer package found at more than one place in one process. */
export interface PeerCopies {
  name: string;
  /** The copy mcpkit itself uses. */
  ours: string;
  /** The other copies: loaded in this process, or what the application's entry or working directory resolves. */
  others: string[];
}

/**
 * Finds second copies of mcpkit's peers: a user's `@injectable()` registers into the tsyringe their
 * code imports, and mcpkit resolves through its own; when those differ, injection fails with
 * "TypeInfo not known". Copies are found among the modules already loaded (CommonJS and ESM users
 * alike load these CommonJS packages through `require.cache`) and, with `resolving`, by resolving each
 * peer from the entry script's folder and from the working directory, as the application's own imports
 * would: that finds a copy the application no longer holds loaded, for the error that explains a failed
 * injection. A start where injection works skips it (six resolutions, ~1 ms of a stdio server's start):
 * the copies that decorated its providers are loaded.
 */
export function findPeerCopies(resolving = true): PeerCopies[] {
  // A bundle (esbuild for Cloudflare Workers) has no module cache to look in, and holds one copy of each package.
  if (!require.cache || typeof require.resolve !== 'function') return [];
  const bases = resolving ? [process.argv[1] ? dirname(process.argv[1]) : undefined, process.cwd()].filter((b): b is string => !!b) : [];
  const loaded = loadedPeerRoots();
  const found: PeerCopies[] = [];
  for (const name of PEERS) {
    const ours = packageRoot(name, safeResolve(name));
    if (!ours) continue;
    const roots = loaded.get(name)!;
    for (const base of bases) {
      const root = packageRoot(name, safeResolve(name, base));
      if (root) roots.add(root);
    }
    roots.delete(ours);
    if (roots.size > 0) found.push({ name, ours, others: [...roots] });
  }
  return found;
}

/**
 * The one other copy of `name` that the application has loaded, when there is exactly one: the copy
 * its decorators registered into (after `npm install ../mcpkit`, mcpkit's own imports resolve from
 * the linked folder's node_modules instead).
 */
export function applicationCopy(copies: PeerCopies[], name: string): string | undefined {
  const loaded = new Set(Object.keys(require.cache).map((file) => packageRoot(name, file)));
  const others = copies.find((c) => c.name === name)?.others.filter((root) => loaded.has(root)) ?? [];
  return others.length === 1 ? others[0] : undefined;
}

/** One line per peer with copies, naming every path and the fix. */
export function describePeerCopies(copies: PeerCopies[]): string {
  return copies
    .map(
      (c) =>
        `${c.name} is loaded from more than one place: mcpkit uses ${c.ours}, the application also sees ${c.others.join(', ')}. ` +
        `Install one copy (it is a peer dependency of mcpkit: \`npm install ${c.name}\` in the application, then \`npm dedupe\`; ` +
        `a folder or linked install of mcpkit must not carry its own node_modules/${c.name}).`,
    )
    .join('\n');
}

function safeResolve(name: string, from?: string): string | undefined {
  try {
    return from ? require.resolve(name, { paths: [from] }) : require.resolve(name);
  } catch {
    return undefined;
  }
}

/**
 * The folders of the peers that loaded modules lie in, by peer: each `node_modules/<peer>` folder a file of
 * `require.cache` is in. One pass over the files (a process that loaded the peers holds several hundred:
 * class-validator's validators), reading each `node_modules` folder a path names, instead of a pass per peer.
 */
function loadedPeerRoots(): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>(PEERS.map((name) => [name, new Set()]));
  const marker = `${sep}node_modules${sep}`;
  // Files of one package come in a run (a package loads its own files): a file in the folder found last,
  // with no node_modules below it, adds nothing.
  let last = '\0';
  for (const file in require.cache) {
    if (file.startsWith(last) && file.indexOf(marker, last.length - 1) < 0) continue;
    for (let at = file.indexOf(marker); at >= 0; at = file.indexOf(marker, at + 1)) {
      const end = file.indexOf(sep, at + marker.length);
      if (end < 0) continue;
      const roots = found.get(file.slice(at + marker.length, end));
      if (!roots) continue;
      last = file.slice(0, end + 1);
      roots.add(file.slice(0, end));
    }
  }
  return found;
}

/** `/app/node_modules/tsyringe/dist/cjs/index.js` -> `/app/node_modules/tsyringe`. */
function packageRoot(name: string, file: string | undefined): string | undefined {
  if (!file) return undefined;
  const marker = `${sep}node_modules${sep}${name}${sep}`;
  const at = file.lastIndexOf(marker);
  return at < 0 ? undefined : file.slice(0, at + marker.length - 1);
}

/**
 * The root container to build from: mcpkit's tsyringe. When the application has loaded another copy of
 * tsyringe, its `@injectable()` classes are known to that copy only, and mcpkit cannot build them: the
 * application fails to start here, naming both copies and the fix (one copy, a peer dependency).
 */
export function applicationRoot(logger: ServerLogger): DependencyContainer {
  const copies = findPeerCopies(false);
  if (copies.length === 0) return rootContainer;
  if (applicationCopy(copies, 'tsyringe'))
    throw new DuplicatePeerPackageError('Cannot build the application', describePeerCopies(copies.filter((c) => c.name === 'tsyringe')));
  // Copies of class-validator or class-transformer: the application's rules may be unknown to mcpkit's copy.
  logger.warn(describePeerCopies(copies));
  return rootContainer;
}
