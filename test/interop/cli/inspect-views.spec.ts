import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ts from 'typescript';
import { McpApplication } from '../../../src';
import { McpTestClient } from '../../../src/testing';
import { mcpkit } from '../../helpers/cli';
import { ViewsModule } from '../../fixtures/views-app';

const VIEWS_APP = 'dist/test/fixtures/views-app.js';

/** The output schemas an in-process client lists, by tool name: what `--views` must show for each tool. */
async function listedOutputSchemas(): Promise<Record<string, unknown>> {
  const app = await McpApplication.create(ViewsModule);
  const client = await McpTestClient.connect(app.connectInMemory());
  try {
    const { tools } = (await client.request('tools/list')) as { tools: { name: string; outputSchema?: unknown }[] };
    return Object.fromEntries(tools.map((t) => [t.name, t.outputSchema]));
  } finally {
    await client.close();
    await app.close();
  }
}

/** Type-checks `files` (strict, no lib types beyond ES2022) and returns the diagnostics as text, one per line. */
function typeCheck(dir: string, files: Record<string, string>): string[] {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const program = ts.createProgram(
    Object.keys(files).map((f) => join(dir, f)),
    { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, types: [], lib: ['lib.es2022.d.ts'], skipLibCheck: false },
  );
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file ? `${d.file.fileName.split('/').pop()}: ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
}

describe('mcpkit inspect --views', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcpkit-views-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('--json: each view, the tools that open it with their visibility, and the JSON Schema of their output as tools/list gives it', async () => {
    const { code, stdout, stderr } = await mcpkit(['inspect', VIEWS_APP, '--views', '--json']);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const schemas = await listedOutputSchemas();
    expect(schemas.board).toMatchObject({ type: 'object', $defs: { Category: expect.any(Object) } });
    expect(JSON.parse(stdout)).toEqual({
      views: [
        {
          uri: 'ui://tasks/board',
          name: 'TaskBoard',
          title: 'Task board',
          tools: [
            { name: 'board', visibility: ['model', 'app'], outputSchema: schemas.board },
            { name: 'moveCard', visibility: ['app'] },
          ],
        },
        {
          uri: 'ui://tasks/chart',
          name: 'burndown-chart',
          tools: [
            { name: 'burndown', visibility: ['model', 'app'], outputSchema: schemas.burndown },
            { name: 'velocity', visibility: ['model'], outputSchema: schemas.velocity },
          ],
        },
        { uri: 'ui://tasks/about', name: 'About', tools: [] },
      ],
    });
  });

  it('text: the URI, the data type name, the tools and their output schemas', async () => {
    const { code, stdout } = await mcpkit(['inspect', VIEWS_APP, '--views']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Views \(3\)\n/);
    expect(stdout).toContain(
      'ui://tasks/board [TaskBoard] - Task board\n    data type: TaskBoardData\n    tool board (visibility: model, app)\n      output schema:\n        {\n          "type": "object",',
    );
    expect(stdout).toContain('tool moveCard (visibility: app)\n      no output class');
    expect(stdout).toMatch(/tool velocity \(visibility: model\)\n {6}output schema:\n[\s\S]*"perWeek"/);
    expect(stdout).toContain('ui://tasks/about [About]\n    data type: AboutData\n    opened by no tool');
  });

  it('--dts: one exported type per view, valid TypeScript that accepts the data and refuses what does not match', async () => {
    const { code, stdout, stderr } = await mcpkit(['inspect', VIEWS_APP, '--views', '--dts']);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toContain('export interface TaskBoardData {\n  title: string;\n  columns: {\n    name: string;\n    cards: {\n');
    expect(stdout).toContain(
      '      /** What the card says */\n      title: string;\n      status: "todo" | "doing" | "done";\n      points?: number;\n      tags: string[];\n',
    );
    expect(stdout).toContain('export interface Category {\n  name: string;\n  children: Category[];\n}');
    expect(stdout).toContain('export type BurndownChartData = BurndownChartBurndownOutput | BurndownChartVelocityOutput;');
    expect(stdout).toContain('export type AboutData = unknown;');
    expect(stdout).toContain(
      'export interface ViewDataByUri {\n  "ui://tasks/board": TaskBoardData;\n  "ui://tasks/chart": BurndownChartData;\n  "ui://tasks/about": AboutData;\n}',
    );

    const good = `import type { TaskBoardData, BurndownChartData, ViewDataByUri } from './view-data';
export const board: TaskBoardData = {
  title: 'Sprint',
  columns: [{ name: 'todo', cards: [{ id: '1', title: 'Write', status: 'todo', tags: ['docs'], points: 2 }] }],
  category: { name: 'work', children: [{ name: 'docs', children: [] }] },
};
export const chart: BurndownChartData = { perWeek: 4 };
export const byUri: ViewDataByUri['ui://tasks/chart'] = { remaining: [3, 1] };
`;
    expect(typeCheck(dir, { 'view-data.d.ts': stdout, 'good.ts': good })).toEqual([]);

    const bad = `import type { TaskBoardData } from './view-data';
export const board: TaskBoardData = {
  title: 'Sprint',
  columns: [{ name: 'todo', cards: [{ id: '1', title: 'Write', status: 'blocked', tags: [] }] }],
  category: { name: 'work', children: [] },
};
`;
    const errors = typeCheck(dir, { 'view-data.d.ts': stdout, 'bad.ts': bad });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^bad\.ts: Type '"blocked"' is not assignable to type '"\w+" \| "\w+" \| "\w+"'/);
  });

  it('--dts without --views is a usage error (exit 2)', async () => {
    const { code, stdout, stderr } = await mcpkit(['inspect', VIEWS_APP, '--dts']);
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
    expect(stderr).toMatch(/--dts goes with --views/);
  });
});
