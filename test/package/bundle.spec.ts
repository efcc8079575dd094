import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI } from '../helpers/cli';
import { packedTarball } from '../helpers/packed-tarball';
import { consumerDependencies, npmInstall, sh } from './consumer-projects';

/**
 * The published lib/ is bundled (scripts/bundle-lib.js): what `require('mcpkit')` loads is lib/mcpkit.js;
 * the code loaded on first use and the other entry points are chunk files beside it (lib/mcpkit.*.js), each
 * module in exactly one of them; every entry point is a one-line file that re-exports its part. Checked on
 * the packed tarball installed with its peers only: what `require('mcpkit')` reads from disk, one copy of
 * each class whichever entry point (and so chunk) it comes through, names kept, and the bin and a stdio
 * server answering the official SDK client. Needs the npm registry.
 */
jest.setTimeout(180_000);

const PEERS = ['reflect-metadata', 'class-validator', 'class-transformer', 'tsyringe'];
let root: string;
let packed: { tarball: string; files: string[] };

/**
 * A server written the way tsc would compile one (decorators applied by hand, `design:paramtypes` given),
 * so that the test needs no compiler: serves over stdio when run, exports its module for the CLI.
 */
const APP = `require('reflect-metadata');
const { IsString } = require('class-validator');
const { injectable } = require('tsyringe');
const { McpApplication, McpModule, Tool } = require('mcpkit');

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
McpModule({ server: { name: 'bundled', version: '1.0.0' }, providers: [Greeter] })(AppModule);
exports.AppModule = AppModule;

if (require.main === module) McpApplication.create(AppModule).then((app) => app.listen({ stdio: true }));
`;

beforeAll(async () => {
  packed = await packedTarball();
  root = mkdtempSync(join(tmpdir(), 'mcpkit-bundle-'));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'bundle-consumer', private: true }));
  writeFileSync(join(root, 'app.js'), APP);
  // ioredis too: a test requires every entry point, mcpkit/redis included, as a consumer that uses it has it installed.
  const peers = consumerDependencies(packed.tarball).filter((d) => [...PEERS, 'ioredis'].some((p) => d.startsWith(`${p}@`)));
  await npmInstall(root, [packed.tarball, ...peers]);
}, 300_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Runs CommonJS `script` with node in the consumer project and returns what it printed, as JSON. */
async function node(script: string): Promise<unknown> {
  return JSON.parse(await sh(root, process.execPath, ['-e', script])) as unknown;
}

describe('the bundled package', () => {
  it("ships its JavaScript as bundle files and one file per entry point (tsc's build: ~270 files)", () => {
    const js = packed.files.filter((f) => f.endsWith('.js'));
    const entries = [
      'lib/auth/index.js',
      'lib/cli/main.js',
      'lib/client/index.js',
      'lib/console-to-stderr.js',
      'lib/index.js',
      'lib/redis/index.js',
      'lib/stores/index.js',
      'lib/testing/index.js',
    ];
    expect(js.filter((f) => !/^lib\/mcpkit(\.[^/]+)?\.js$/.test(f)).sort()).toEqual(entries);
    expect(js).toContain('lib/mcpkit.js');
  });

  it("reads two of its files when a stdio server requires it after the peers: the entry point and the bundle (tsc's build: 128)", async () => {
    const pkg = realpathSync(join(root, 'node_modules', 'mcpkit'));
    const loaded = await node(`${PEERS.map((p) => `require('${p}');`).join(' ')}
      require('mcpkit');
      const pkg = ${JSON.stringify(pkg + '/')};
      console.log(JSON.stringify(Object.keys(require.cache).filter((f) => f.startsWith(pkg)).map((f) => f.slice(pkg.length)).sort()));`);
    expect(loaded).toEqual(['lib/index.js', 'lib/mcpkit.js']);
  });

  it("holds one copy of each class across entry points: mcpkit/testing's and mcpkit/client's errors are mcpkit's McpError", async () => {
    const seen = await node(`require('reflect-metadata');
      const core = require('mcpkit');
      const { McpTestClient } = require('mcpkit/testing');
      const { McpClient } = require('mcpkit/client');
      const { AppModule } = require('./app.js');
      (async () => {
        const app = await core.McpApplication.create(AppModule);
        const test = await McpTestClient.connect(app.connectInMemory());
        const fromTesting = await test.request('no/such/method').catch((e) => e);
        const fromClient = await new McpClient().request('ping').catch((e) => e);
        await app.close();
        console.log(JSON.stringify({
          testing: [fromTesting.constructor.name, fromTesting instanceof core.McpError],
          client: [fromClient.constructor.name, fromClient instanceof core.McpError],
        }));
      })();`);
    expect(seen).toEqual({ testing: ['McpError', true], client: ['McpError', true] });
  });

  it('keeps the names of its classes and functions (a bundler renames a class that refers to itself: McpError became _McpError)', async () => {
    const renamed = await node(`require('reflect-metadata');
      const renamed = [];
      for (const entry of ['mcpkit', 'mcpkit/auth', 'mcpkit/client', 'mcpkit/stores', 'mcpkit/redis', 'mcpkit/testing'])
        for (const [name, value] of Object.entries(require(entry)))
          if (typeof value === 'function' && value.name !== name) renamed.push(entry + ': ' + name + ' is named ' + value.name);
      console.log(JSON.stringify(renamed));`);
    expect(renamed).toEqual([]);
  });

  it('names a function or class by a call at load only where the language would not name it (the test above checks the names)', () => {
    const lib = join(realpathSync(join(root, 'node_modules', 'mcpkit')), 'lib');
    const redundant: string[] = [];
    for (const file of readdirSync(lib).filter((f) => /^mcpkit(\.[^/]+)?\.js$/.test(f))) {
      const code = readFileSync(join(lib, file), 'utf8');
      const declared = new Set([...code.matchAll(/^ *(?:async )?function\*? ?([\w$]+)\(/gm)].map((m) => m[1]));
      for (const [call, fn, name] of code.matchAll(/^ *__name\(([\w$]+), "([\w$]+)"\);$/gm))
        if (fn === name && declared.has(fn)) redundant.push(`${file}: ${call.trim()}`);
      for (const [, variable, name] of code.matchAll(
        /^ *var ([\w$]+) = class(?: extends [^\n{]+)? \{\n *static \{\n *__name\(this, "([\w$]+)"\);/gm,
      ))
        if (variable === name) redundant.push(`${file}: class ${name}`);
      if (code.includes('get: /* @__PURE__ */ __name(function() {')) redundant.push(`${file}: re-export getters`);
      // An arrow defined as a property or a variable of the name it is given (one on its line).
      for (const [line, name, given] of code.matchAll(
        /^(?!.*__name\(.*__name\().*?(?:^ *(?:const |let |var )?|[{,] )"?([\w$/]+)"?(?:: | = )\/\* @__PURE__ \*\/ __name\((?:async )?\([^\n]*, "([^"]+)"\)[,;]?$/gm,
      ))
        if (name === given) redundant.push(`${file}: ${line.trim()}`);
    }
    expect(redundant).toEqual([]);
  });

  it('runs its bin: --version, and inspect of an app whose decorators came from the main entry point', async () => {
    const bin = join(root, 'node_modules', '.bin', 'mcpkit');
    expect((await sh(root, bin, ['--version'])).trim()).toBe(
      (JSON.parse(await sh(root, process.execPath, ['-p', "JSON.stringify(require('mcpkit/package.json'))"])) as { version: string })
        .version,
    );
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

  it("writes with its bin the same projects as tsc's build of the CLI, for every target (its templates are text inside the bundle)", async () => {
    const bin = join(root, 'node_modules', '.bin', 'mcpkit');
    for (const target of ['node', 'bun', 'deno', 'workers', 'lambda']) {
      const args = ['--target', target, '--mcpkit', '^0.1.0'];
      await sh(root, bin, ['init', join(root, 'init', 'lib', target), ...args]);
      await sh(root, process.execPath, [CLI, 'init', join(root, 'init', 'tsc', target), ...args]);
    }
    const files = (dir: string) =>
      readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((f) => f.isFile())
        .map((f) => join(f.parentPath, f.name))
        .map((file) => [relative(dir, file), readFileSync(file, 'utf8')])
        .sort(([a], [b]) => a.localeCompare(b));
    const written = files(join(root, 'init', 'lib'));
    expect(written.length).toBeGreaterThan(20);
    expect(written).toEqual(files(join(root, 'init', 'tsc')));
  });

  it('serves a tools/call over stdio to the official SDK client', async () => {
    const client = new Client({ name: 'bundle-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: ['app.js'], cwd: root, stderr: 'pipe' }));
    try {
      const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
      expect(result.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
    } finally {
      await client.close();
    }
  });
});
