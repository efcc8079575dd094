import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Command } from './command';
import { parseCommandArgs } from './command';
import { CliError } from './cli-error';
import { cliPackage } from './cli-package';
import { initTemplates } from './init.templates';
import { type PortableTarget, portableTemplates } from './init.portable';
import { shown } from './project';

/** The peers a project brings itself (the decorators and the container must be the app's own copies). */
const PEERS: Record<string, string> = {
  'reflect-metadata': '^0.2.2',
  'class-validator': '^0.15.1',
  'class-transformer': '^0.5.1',
  tsyringe: '^4.10.0',
};

const TARGETS = ['node', 'bun', 'deno', 'workers', 'lambda'];

/** What to run after init, per target. */
const NEXT: Record<string, string> = {
  node: 'npm install && npm test\n  npm start',
  bun: 'bun install && bun test\n  bun run start',
  deno: 'npm install && deno task test\n  deno task start',
  workers: 'npm install && npm test\n  npx wrangler dev',
  lambda: 'npm install && npm test\n  npm run deploy',
};

export const initCommand: Command = {
  name: 'init',
  summary: 'create a new project: one tool, one resource, one prompt, a test, HTTP and stdio serving',
  help: `Usage: mcpkit init <dir> [--target node|bun|deno|workers|lambda] [--skills] [--mcpkit <spec>]

Writes a new project into <dir> (created when missing; refused when not empty): package.json,
tsconfig.json, src/app.module.ts, src/main.ts (with src/compile-cache.ts), test/app.module.spec.ts, a
Dockerfile and a README. Then:

  cd <dir> && npm install && npm test && npm start

  --target <name>   where it runs (default node): bun (Bun.serve, bun test), deno (Deno.serve, deno.json
                    tasks, deno test), workers (a Cloudflare Worker: wrangler.toml, an esbuild build),
                    lambda (AWS Lambda: SAM template.yaml, an esbuild build); each with its own test
  --skills          also a skills/ folder with one skill, served by the module (Agent Skills over MCP;
                    node only: the skills are read from the file system)
  --mcpkit <spec>   the mcpkit dependency spec (default: ^<this version>), e.g. file:../mcpkit-0.1.0.tgz`,

  async run(args) {
    const { values, positionals } = parseCommandArgs('init', args, {
      mcpkit: { type: 'string' },
      target: { type: 'string' },
      skills: { type: 'boolean' },
    });
    const target = values.target ?? 'node';
    if (!TARGETS.includes(target)) throw new CliError(`--target must be one of ${TARGETS.join(', ')}, not ${target}`, 2);
    if (values.skills && target !== 'node')
      throw new CliError(`--skills reads skills from the file system: it goes with --target node, not ${target}`, 2);
    if (positionals.length !== 1) throw new CliError('init needs one directory: mcpkit init <dir>', 2);
    const dir = resolve(positionals[0]);
    if (existsSync(dir) && (!statSync(dir).isDirectory() || readdirSync(dir).length > 0)) {
      throw new CliError(`${shown(dir)} is not an empty directory: choose a new or empty one`);
    }
    const own = cliPackage();
    const peers = Object.fromEntries(Object.entries(PEERS).map(([name, range]) => [name, own.dependencies[name] ?? range]));
    const options = {
      name: packageName(basename(dir)),
      mcpkit: values.mcpkit ?? `^${own.version}`,
      version: own.version,
      peers,
      skills: values.skills === true,
    };
    const files = target === 'node' ? initTemplates(options) : portableTemplates(target as PortableTarget, options);
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
    process.stdout.write(`Created ${shown(dir)}. Next:\n\n  cd ${shown(dir)}\n  ${NEXT[target]}\n`);
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
