import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** What the CLI needs from the package.json of the mcpkit it belongs to. */
export interface CliPackage {
  readonly root: string;
  readonly version: string;
  readonly dependencies: Readonly<Record<string, string>>;
  /** Its "engines": the Node versions it runs on. */
  readonly engines: { readonly node?: string };
}

let cached: CliPackage | undefined;

/**
 * The mcpkit package this CLI ships in, found by walking up from this file: the layout differs
 * between the repository build (dist/src/cli) and the published library (lib/cli).
 */
export function cliPackage(): CliPackage {
  if (cached) return cached;
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const json = JSON.parse(readFileSync(file, 'utf8')) as {
        name?: string;
        version?: string;
        dependencies?: Record<string, string>;
        peerDependencies?: Record<string, string>;
        engines?: { node?: string };
      };
      if (json.name === 'mcpkit') {
        cached = {
          root: dir,
          version: json.version ?? '0.0.0',
          dependencies: { ...json.dependencies, ...json.peerDependencies },
          engines: { ...json.engines },
        };
        return cached;
      }
    }
    if (dirname(dir) === dir) return { root: __dirname, version: '0.0.0', dependencies: {}, engines: {} };
  }
}
