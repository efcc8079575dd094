import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpApplication, McpModule } from '../../src';
import { McpTestClient } from '../../src/testing';
import { ROOT } from '../helpers/paths';
import { perRequestBody, perRequestHeaders, postPerRequest } from '../helpers/per-request-http';
import { fetchHandler } from '../../src/fetch';
import { httpServer } from '../../src/http';

const SKILLS = join(ROOT, 'test', 'fixtures', 'skills');
const EXTENSION = 'io.modelcontextprotocol/skills';
const quiet = { logger: { error: () => undefined, warn: () => undefined, info: () => undefined } };

@McpModule({ providers: [] })
class EmptyModule {}

/** Skills to a 2026-07-28 client over HTTP: declared in server/discover, cacheable results, the era's error codes. */
describe('skills in the per-request era, over HTTP', () => {
  let app: McpApplication;
  let url: string;
  beforeAll(async () => {
    app = await McpApplication.create(EmptyModule, {
      ...quiet,
      skills: { folders: [SKILLS], watch: false, cache: { ttlMs: 300_000, scope: 'public' } },
    });
    url = (await app.listen(httpServer({ host: '127.0.0.1', port: 0 }))).url;
  });
  afterAll(() => app.close());

  it('declares the extension and the resources capability in server/discover', async () => {
    const { body } = await postPerRequest(url, 'server/discover');
    expect(body.result!.capabilities).toMatchObject({ extensions: { [EXTENSION]: { directoryRead: true } }, resources: {} });
  });

  it('answers skills/list and skills/get with resultType, ttlMs and cacheScope', async () => {
    const listed = (await postPerRequest(url, 'skills/list')).body.result!;
    expect(listed).toMatchObject({ resultType: 'complete', ttlMs: 300_000, cacheScope: 'public' });
    expect((listed.skills as { uri: string }[]).length).toBe(4);
    const got = (await postPerRequest(url, 'skills/get', { uri: 'skill://git-workflow/SKILL.md' })).body.result!;
    expect(got).toMatchObject({
      resultType: 'complete',
      ttlMs: 300_000,
      cacheScope: 'public',
      skill: { uri: 'skill://git-workflow/SKILL.md' },
    });
    expect(got.nextCursor).toBeUndefined();
  });

  it('answers -32602 for an unknown skill, a file that is not served and a path that is no directory', async () => {
    const unknown = await postPerRequest(url, 'skills/get', { uri: 'skill://nope/SKILL.md' });
    expect(unknown.body.error).toMatchObject({ code: -32602, message: 'No skill is served at skill://nope/SKILL.md' });
    for (const uri of ['skill://git-workflow/../pdf-processing/SKILL.md', 'skill://git-workflow/missing.md']) {
      expect((await postPerRequest(url, 'resources/read', { uri })).body.error).toMatchObject({ code: -32602 });
    }
    const notDir = await postPerRequest(url, 'resources/directory/read', { uri: 'skill://git-workflow/SKILL.md' });
    expect(notDir.body.error).toMatchObject({ code: -32602, message: 'skill://git-workflow/SKILL.md is not a directory resource' });
  });

  it('pages skills/list and resources/directory/read with cursors that round-trip', async () => {
    const small = await McpApplication.create(EmptyModule, { ...quiet, pageSize: 2, skills: { folders: [SKILLS], watch: false } });
    try {
      const smallUrl = (await small.listen(httpServer({ host: '127.0.0.1', port: 0 }))).url;
      const walk = async (method: string, params: Record<string, unknown>, key: string) => {
        const seen: string[] = [];
        let cursor: string | undefined;
        do {
          const result = (await postPerRequest(smallUrl, method, { ...params, ...(cursor ? { cursor } : {}) })).body.result!;
          seen.push(...(result[key] as { uri: string }[]).map((e) => e.uri));
          cursor = result.nextCursor as string | undefined;
        } while (cursor);
        return seen;
      };
      expect(await walk('skills/list', {}, 'skills')).toHaveLength(4);
      expect(await walk('resources/directory/read', { uri: 'skill://pdf-processing' }, 'resources')).toHaveLength(6);
      const bad = await postPerRequest(smallUrl, 'skills/list', { cursor: 'not-a-cursor' });
      expect(bad.body.error).toMatchObject({ code: -32602 });
    } finally {
      await small.close();
    }
  });

  it('keeps the extension declared after the last skill added in code is removed, and lists none', async () => {
    const coded = await McpApplication.create(EmptyModule, quiet);
    try {
      coded.addSkill({ name: 'only', description: 'The only skill', instructions: '# Only' });
      const client = await McpTestClient.connect(coded.connectInMemory());
      coded.removeSkill('skill://only/SKILL.md');
      expect(await client.request('skills/list', {})).toEqual({ skills: [] });
    } finally {
      await coded.close();
    }
  });
});

/** A skills folder that needs a scope: hidden from callers without it, as any resource is. */
describe('skills behind a scope', () => {
  let app: McpApplication;
  beforeAll(async () => {
    app = await McpApplication.create(EmptyModule, {
      ...quiet,
      skills: { folders: [{ path: SKILLS, prefix: 'team', scopes: ['skills:read'] }], watch: false },
    });
    app.addSkill({ name: 'open', description: 'Anyone may read this', instructions: '# Open' });
  });
  afterAll(() => app.close());

  const as = (scopes: string[]) =>
    McpTestClient.connect(app.connectInMemory({ auth: { token: 't', clientId: 'c', scopes, subject: 's' } }));

  it('lists, gets, reads and shows folders of the scoped skills only to callers holding the scope', async () => {
    const outsider = await as([]);
    expect(((await outsider.request('skills/list', {})) as { skills: { uri: string }[] }).skills.map((s) => s.uri)).toEqual([
      'skill://open/SKILL.md',
    ]);
    await expect(outsider.request('skills/get', { uri: 'skill://team/git-workflow/SKILL.md' })).rejects.toMatchObject({ code: -32003 });
    await expect(outsider.request('resources/read', { uri: 'skill://team/git-workflow/SKILL.md' })).rejects.toMatchObject({ code: -32003 });
    await expect(outsider.request('resources/directory/read', { uri: 'skill://team' })).rejects.toMatchObject({ code: -32602 });

    const member = await as(['skills:read']);
    expect(((await member.request('skills/list', {})) as { skills: unknown[] }).skills).toHaveLength(5);
    expect(await member.request('skills/get', { uri: 'skill://team/git-workflow/SKILL.md' })).toMatchObject({
      skill: { uri: 'skill://team/git-workflow/SKILL.md' },
    });
    expect(
      ((await member.request('resources/directory/read', { uri: 'skill://team' })) as { resources: unknown[] }).resources,
    ).toHaveLength(3);
  });
});

describe('skills through the fetch handler (Bun, Deno, workerd, Lambda)', () => {
  it('lists, gets and reads skills as over Koa', async () => {
    const app = await McpApplication.create(EmptyModule, { ...quiet, skills: { folders: [SKILLS], watch: false } });
    try {
      const handler = fetchHandler(app);
      const post = async (method: string, params: Record<string, unknown>) => {
        const body = perRequestBody(method, params);
        const response = await handler(
          new Request('http://127.0.0.1/mcp', {
            method: 'POST',
            headers: { ...perRequestHeaders(body), host: '127.0.0.1' },
            body: JSON.stringify(body),
          }),
        );
        return (await response.json()) as { result?: Record<string, unknown>; error?: { code: number } };
      };
      expect(((await post('skills/list', {})).result!.skills as unknown[]).length).toBe(4);
      expect((await post('skills/get', { uri: 'skill://triage/SKILL.md' })).error).toMatchObject({ code: -32602 });
      const read = await post('resources/read', { uri: 'skill://git-workflow/SKILL.md' });
      expect((read.result!.contents as { text: string }[])[0].text).toContain('# Git workflow');
    } finally {
      await app.close();
    }
  });
});

describe('a skill file read with a size bound', () => {
  it('refuses a file that grew past 16 MiB since it was listed, and goes on serving the others', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpkit-skills-big-'));
    mkdirSync(join(dir, 'notes'));
    writeFileSync(join(dir, 'notes', 'SKILL.md'), '---\nname: notes\ndescription: Notes\n---\n');
    writeFileSync(join(dir, 'notes', 'data.bin'), 'small');
    const app = await McpApplication.create(EmptyModule, { ...quiet, skills: { folders: [dir], watch: false } });
    try {
      const client = await McpTestClient.connect(app.connectInMemory());
      writeFileSync(join(dir, 'notes', 'data.bin'), Buffer.alloc(16 * 1024 * 1024 + 1));
      await expect(client.request('resources/read', { uri: 'skill://notes/data.bin' })).rejects.toMatchObject({ code: -32603 });
      expect(await client.request('resources/read', { uri: 'skill://notes/SKILL.md' })).toMatchObject({
        contents: [{ mimeType: 'text/markdown' }],
      });
    } finally {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
