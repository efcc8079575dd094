import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../helpers/paths';
import { mcpkit } from '../../helpers/cli';

const NOTES = 'dist/samples/notes/app.module.js';

/**
 * A single-file app: one file that declares its tools and module, then builds and serves the
 * application itself, exporting nothing. inspect and call list and call it without serving it.
 */
function singleFileApp(dir: string, serve: string): string {
  const file = join(dir, `server-${Math.random().toString(36).slice(2)}.js`);
  writeFileSync(
    file,
    `require('reflect-metadata');
     const { EmptyInput, McpApplication, McpModule, Tool } = require(${JSON.stringify(join(ROOT, 'dist', 'src'))});
     const { stdio } = require(${JSON.stringify(join(ROOT, 'dist', 'src', 'stdio'))});
     const { httpServer } = require(${JSON.stringify(join(ROOT, 'dist', 'src', 'http'))});
     class Tools { ping() { return 'pong'; } }
     Reflect.defineMetadata('design:paramtypes', [EmptyInput], Tools.prototype, 'ping');
     Tool({ description: 'Answers pong' })(Tools.prototype, 'ping', Object.getOwnPropertyDescriptor(Tools.prototype, 'ping'));
     class AppModule {}
     McpModule({ server: { name: 'single', version: '1.0.0' }, providers: [Tools] })(AppModule);
     async function main() {
       const app = await McpApplication.create(AppModule);
       process.stdout.write('SERVING\\n');
       ${serve}
     }
     main();`,
  );
  return file;
}

describe('mcpkit inspect and call on a single-file app (it builds and serves its application itself)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcpkit-single-'));
    // The app's own project: its require('reflect-metadata') resolves here, not from whatever the folders above hold.
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['over stdio', 'await app.listen(stdio());'],
    ['over HTTP', "await app.listen(httpServer({ port: 0, host: '127.0.0.1' }));"],
  ])('inspect lists the module it passes to McpApplication.create, and serves nothing (%s)', async (_label, serve) => {
    const { code, stdout, stderr } = await mcpkit(['inspect', singleFileApp(dir, serve), '--json']);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const surface = JSON.parse(stdout) as { server: { name: string }; tools: { name: string }[] };
    expect(surface.server.name).toBe('single');
    expect(surface.tools.map((t) => t.name)).toEqual(['ping']);
  });

  it('call calls its tool', async () => {
    const { code, stdout } = await mcpkit(['call', singleFileApp(dir, 'await app.listen(stdio());'), 'ping']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ content: [{ type: 'text', text: 'pong' }] });
  });
});

describe('mcpkit call with malformed arguments says so, not "entry file not found"', () => {
  it.each([
    // The shell split an unquoted object into words: mcpkit call addNote {"title": "Milk"}
    [
      ['addNote', '{title:', 'Milk}'],
      /^mcpkit: the tool arguments reached mcpkit as 2 separate words \('\{title:' 'Milk\}'\): quote the JSON object as one argument, e.g\. mcpkit call addNote '\{"name": "x"\}'\n$/,
    ],
    [
      [NOTES, 'addNote', '{"title":', '"Milk"}'],
      /^mcpkit: the tool arguments reached mcpkit as 2 separate words .*mcpkit call dist\/samples\/notes\/app\.module\.js addNote '/,
    ],
    // Not JSON at all, or JSON that is not an object
    [['addNote', 'title=Milk'], /^mcpkit: tool arguments are not valid JSON \(.*\); pass an object, e\.g\. '\{"name": "x"\}'\n$/],
    [['addNote', "{title: 'Milk'}"], /^mcpkit: tool arguments are not valid JSON/],
    [['addNote', '["Milk"]'], /^mcpkit: tool arguments must be a JSON object/],
  ])('mcpkit call %j', async (args, message) => {
    const { code, stdout, stderr } = await mcpkit(['call', ...args]);
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
    expect(stderr).toMatch(message);
  });

  it('an entry that does not exist followed by a tool name is still "entry file not found", with the other reading offered', async () => {
    const { code, stderr } = await mcpkit(['call', 'notes', 'addNote']);
    expect(code).toBe(1);
    expect(stderr).toBe(
      'mcpkit: entry file not found: notes; pass the .js (or .ts) file that exports your @McpModule class, then the tool (or, if notes is the tool, its arguments as one JSON object: mcpkit call notes \'{"name": "x"}\')\n',
    );
  });
});
