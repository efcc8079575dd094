import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { packedTarball } from '../helpers/packed-tarball';
import { consumerDependencies, npmInstall, sh } from './consumer-projects';

/**
 * The packed tarball installed with its peers only, used as a consumer uses it: `import` and `require` share one
 * copy of mcpkit, the bin works and turns Node's compile cache on, stack traces map to mcpkit's TypeScript, the
 * install folder is never written, the package declares no install scripts and uses no private API. Needs the
 * npm registry.
 */
jest.setTimeout(180_000);

const PEERS = ['reflect-metadata', 'class-validator', 'class-transformer', 'tsyringe'];
let root: string;
let pkg: string;

/**
 * A server written the way tsc would compile one (decorators applied by hand, `design:paramtypes` given),
 * so that the test needs no compiler: serves over stdio when run, exports its module for the CLI.
 */
const APP = `require('reflect-metadata');
const { IsString } = require('class-validator');
const { injectable } = require('tsyringe');
const { McpApplication, McpModule, Tool } = require('mcpkit');
const { stdio } = require('mcpkit/stdio');

class GreetInput {}
IsString()(GreetInput.prototype, 'name');

class Greeter {
  greet(input) {
    return 'Hello, ' + input.name + '!';
  }
}
injectable()(Greeter);
Reflect.defineMetadata('design:paramtypes', [GreetInput], Greeter.prototype, 'greet');
Tool({ description: 'Greets' })(Greeter.prototype, 'greet', Object.getOwnPropertyDescriptor(Greeter.prototype, 'greet'));

class AppModule {}
McpModule({ server: { name: 'installed', version: '1.0.0' }, providers: [Greeter] })(AppModule);
exports.AppModule = AppModule;

if (require.main === module) McpApplication.create(AppModule).then((app) => app.listen(stdio()));
`;

/** An ES module that takes the application from CommonJS and serves it with the classes it imports itself. */
const MIXED = `import 'reflect-metadata';
import { createRequire } from 'node:module';
import { McpApplication, McpError } from 'mcpkit';
import { McpTestClient } from 'mcpkit/testing';
import { McpClient } from 'mcpkit/client';

const { AppModule } = createRequire(import.meta.url)('./app.js');
const app = await McpApplication.create(AppModule);
const test = await McpTestClient.connect(app.connectInMemory());
const listed = await test.request('tools/list');
const fromTesting = await test.request('no/such/method').catch((e) => e);
const fromClient = await new McpClient().request('ping').catch((e) => e);
await app.close();
console.log(JSON.stringify({
  tools: listed.tools.map((t) => t.name),
  testing: fromTesting instanceof McpError,
  client: fromClient instanceof McpError,
}));
`;

beforeAll(async () => {
  const packed = await packedTarball();
  root = mkdtempSync(join(tmpdir(), 'mcpkit-installed-'));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'installed-consumer', private: true }));
  writeFileSync(join(root, 'app.js'), APP);
  writeFileSync(join(root, 'mixed.mjs'), MIXED);
  // ioredis too: a test requires every entry point, mcpkit/redis included, as a consumer that uses it has it installed.
  const peers = consumerDependencies(packed.tarball).filter((d) => [...PEERS, 'ioredis'].some((p) => d.startsWith(`${p}@`)));
  await npmInstall(root, [packed.tarball, ...peers]);
  pkg = realpathSync(join(root, 'node_modules', 'mcpkit'));
}, 300_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Every file of the installed package with its size and modification time. */
function snapshot(): string[] {
  return readdirSync(pkg, { recursive: true, withFileTypes: true })
    .filter((f) => f.isFile())
    .map((f) => join(f.parentPath, f.name))
    .map((file) => `${relative(pkg, file)} ${statSync(file).size} ${statSync(file).mtimeMs}`)
    .sort();
}

describe('the installed package', () => {
  it('holds one copy of mcpkit whether imported or required: an ES module serves a CommonJS module, errors are one McpError', async () => {
    const seen = JSON.parse(await sh(root, process.execPath, ['mixed.mjs'])) as unknown;
    expect(seen).toEqual({ tools: ['greet'], testing: true, client: true });
  });

  it('serves a tools/call over stdio to the official SDK client', async () => {
    const client = new Client({ name: 'installed-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: ['app.js'], cwd: root, stderr: 'pipe' }));
    try {
      const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
      expect(result.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
    } finally {
      await client.close();
    }
  });

  it('runs its bin: --version, and inspect of an app whose decorators came from the main entry point', async () => {
    const bin = join(root, 'node_modules', '.bin', 'mcpkit');
    const { version } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { version: string };
    expect((await sh(root, bin, ['--version'])).trim()).toBe(version);
    const surface = JSON.parse(await sh(root, bin, ['inspect', 'app.js', '--json'])) as {
      tools: { name: string; inputSchema: { properties: Record<string, unknown> } }[];
    };
    expect(surface.tools.map((t) => [t.name, Object.keys(t.inputSchema.properties)])).toEqual([['greet', ['name']]]);

    // An entry that loads this same mcpkit but declares no module: told so, not sent to "another copy" of mcpkit.
    writeFileSync(join(root, 'no-module.js'), "require('reflect-metadata');\nrequire('mcpkit');\nexports.answer = 42;\n");
    const failed = await sh(root, bin, ['inspect', 'no-module.js']).catch((e: Error) => e.message);
    expect(failed).toContain('no-module.js exports no class decorated with @McpModule');
    expect(failed).not.toContain("run that project's own CLI");
  });

  it("starts its bin with Node's compile cache, kept where NODE_COMPILE_CACHE says", async () => {
    const cache = mkdtempSync(join(tmpdir(), 'mcpkit-compile-cache-'));
    try {
      await sh(root, join(root, 'node_modules', '.bin', 'mcpkit'), ['inspect', 'app.js', '--json'], { NODE_COMPILE_CACHE: cache });
      expect(readdirSync(cache, { recursive: true }).length).toBeGreaterThan(0);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  it('never writes into its install folder: the bin, a stdio server and an ES module leave it as installed', async () => {
    const before = snapshot();
    await sh(root, join(root, 'node_modules', '.bin', 'mcpkit'), ['inspect', 'app.js', '--json']);
    await sh(root, process.execPath, ['mixed.mjs']);
    expect(snapshot()).toEqual(before);
  });

  it("points stack traces into mcpkit's TypeScript sources under --enable-source-maps", async () => {
    // A class that is no module: mcpkit's kernel throws the error, so its stack runs through mcpkit's code.
    const script =
      "require('reflect-metadata'); require('mcpkit').McpApplication.create(class NotAModule {}).catch((e) => console.log(e.stack))";
    const stack = await sh(root, process.execPath, ['--enable-source-maps', '-e', script]);
    expect(stack).toMatch(/mcpkit[\\/]src[\\/][\w\\/.-]+\.ts:\d+:\d+/);
  });

  it('declares no script that runs when it is installed', () => {
    const { scripts = {} } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
    expect(Object.keys(scripts).filter((s) => /^(pre|post)?(install|prepare)$/.test(s))).toEqual([]);
  });

  it('uses no private API of Node and no internal module of another package', () => {
    const offending: string[] = [];
    for (const file of readdirSync(join(pkg, 'lib'), { recursive: true }) as string[]) {
      if (!/\.m?js$/.test(file)) continue;
      const code = readFileSync(join(pkg, 'lib', file), 'utf8');
      const found = code.match(
        /\bModule\._\w+|_nodeModulePaths|_resolveFilename|process\.binding|require\(["'](class-transformer|class-validator|tsyringe)\/[^"']+["']\)/g,
      );
      if (found) offending.push(`${file}: ${[...new Set(found)].join(', ')}`);
    }
    expect(offending).toEqual([]);
  });
});
