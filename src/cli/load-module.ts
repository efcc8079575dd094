import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { ClassType } from '../metadata/records';
import { metadataStore } from '../metadata/metadata-store';
import { observeApplicationCreation } from '../kernel/entry-inspection';
import { CliError, firstLine } from './cli-error';
import { shown } from './project';

/**
 * Loads a compiled entry and picks its @McpModule class: the only one among its exports (default
 * or named) and the modules it passed to `McpApplication.create` while loading (a single-file app
 * that builds and serves itself: it is listed, not started), or the one `--module` names.
 */
export function loadModuleClass(js: string, name?: string): ClassType {
  let exports: unknown;
  const created: ClassType[] = [];
  try {
    exports = observeApplicationCreation(
      (module) => created.push(module),
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at run time: the user's compiled entry, whose path the command line gives
      () => require(js) as unknown,
    );
  } catch (error) {
    throw new CliError(`cannot load ${shown(js)}: ${firstLine(error)}`);
  }
  const named = exportsOf(exports);
  const exported = named.filter(([, v]) => metadataStore.module(v) !== undefined).map(([, v]) => v);
  const modules = [...new Set([...exported, ...created.filter((m) => metadataStore.module(m) !== undefined)])];
  if (name !== undefined) {
    const chosen = modules.find((m) => m.name === name) ?? named.find(([k, v]) => k === name && modules.includes(v))?.[1];
    if (!chosen)
      throw new CliError(
        `${shown(js)} exports no @McpModule class named ${name}${modules.length ? ` (it has: ${modules.map((m) => m.name).join(', ')})` : ''}; check --module`,
      );
    return chosen;
  }
  if (modules.length === 1) return modules[0];
  if (modules.length > 1)
    throw new CliError(
      `${shown(js)} exports several @McpModule classes (${modules.map((m) => m.name).join(', ')}): choose one with --module <Name>`,
    );
  throw new CliError(
    noModuleMessage(
      js,
      named.map(([k]) => k),
    ),
  );
}

function exportsOf(exports: unknown): [string, ClassType][] {
  const entries: [string, unknown][] = typeof exports === 'function' ? [['module.exports', exports]] : [];
  if (exports !== null && (typeof exports === 'object' || typeof exports === 'function')) entries.push(...Object.entries(exports));
  return entries.filter((e): e is [string, ClassType] => typeof e[1] === 'function');
}

function noModuleMessage(js: string, names: string[]): string {
  const other = otherMcpkit(js);
  if (other) {
    return `${shown(js)} has no @McpModule class known to this CLI: its code uses the mcpkit at ${shown(other)}; run that project's own CLI (npx mcpkit)`;
  }
  const found = names.length ? ` (its exports: ${names.join(', ')})` : '';
  return (
    `${shown(js)} exports no class decorated with @McpModule${found}, nor passed one to McpApplication.create while loading: ` +
    'export your module class (export class AppModule {} under @McpModule({...})) or pass the file that does'
  );
}

/** The mcpkit the entry's own code resolves and loaded, when it is not the copy this CLI runs from. */
function otherMcpkit(js: string): string | undefined {
  try {
    // Resolved as the entry would (a require() here would find this package itself through its
    // "exports"), and counted only when the entry's code did load it.
    const theirs = createRequire(js).resolve('mcpkit');
    // The package's entry (lib/index.js) sits beside this code in the published bundle (lib/mcpkit.js),
    // one folder up from it in tsc's layout (lib/cli/load-module.js).
    const ours = [__dirname, dirname(__dirname)];
    return ours.includes(dirname(theirs)) || !require.cache[theirs] ? undefined : theirs;
  } catch {
    return undefined;
  }
}
