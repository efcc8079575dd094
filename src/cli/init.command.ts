import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Command } from './command';
import { parseCommandArgs } from './command';
import { CliError } from './cli-error';
import { cliPackage } from './cli-package';
import { initTemplates } from './init.templates';
import { shown } from './project';

/** The peers a project brings itself (the decorators and the container must be the app's own copies). */
const PEERS: Record<string, string> = {
  'reflect-metadata': '^0.2.2',
  'class-validator': '^0.15.1',
  'class-transformer': '^0.5.1',
  tsyringe: '^4.10.0',
};

export const initCommand: Command = {
  name: 'init',
  summary: 'create a new project: one tool, one resource, one prompt, a test, HTTP and stdio serving',
  help: `Usage: mcpkit init <dir> [--mcpkit <spec>]

Writes a new project into <dir> (created when missing; refused when not empty): package.json,
tsconfig.json, src/app.module.ts, src/main.ts, test/app.module.spec.ts and a README. Then:

  cd <dir> && npm install && npm test && npm start

  --mcpkit <spec>   the mcpkit dependency spec (default: ^<this version>), e.g. file:../mcpkit-0.1.0.tgz`,

  async run(args) {
    const { values, positionals } = parseCommandArgs('init', args, { mcpkit: { type: 'string' } });
    if (positionals.length !== 1) throw new CliError('init needs one directory: mcpkit init <dir>', 2);
    const dir = resolve(positionals[0]);
    if (existsSync(dir) && (!statSync(dir).isDirectory() || readdirSync(dir).length > 0)) {
      throw new CliError(`${shown(dir)} is not an empty directory: choose a new or empty one`);
    }
    const own = cliPackage();
    const peers = Object.fromEntries(Object.entries(PEERS).map(([name, range]) => [name, own.dependencies[name] ?? range]));
    const files = initTemplates({ name: packageName(basename(dir)), mcpkit: values.mcpkit ?? `^${own.version}`, peers });
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
    process.stdout.write(`Created ${shown(dir)}. Next:\n\n  cd ${shown(dir)}\n  npm install && npm test\n  npm start\n`);
    return 0;
  },
};

/** A valid npm package name from a directory name. */
function packageName(base: string): string {
  const name = base
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+/, '');
  return name || 'mcp-server';
}
