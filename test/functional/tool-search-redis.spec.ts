import { McpApplication, McpModule } from '../../src';
import { DeskTools } from '../fixtures/desk.tools';
import { StaticTokenVerifier } from '../../src/auth';
import { httpServer } from '../../src/http';
import { redisScaleOut } from '../../src/redis';
import { ACCEPT_BOTH } from '../helpers/http-app';
import { perRequestBody, perRequestHeaders } from '../helpers/per-request-http';
import { PrivateRedis } from '../helpers/redis-server';

@McpModule({ providers: [DeskTools], server: { name: 'groups', version: '1.0.0' } })
class DeskModule {}

const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined };
const verifier = new StaticTokenVerifier({ ann: { subject: 'ann', scopes: [] } });
const names = (result: unknown) => (result as { tools: { name: string }[] }).tools.map((t) => t.name);

/** Two instances of a server in search mode sharing a private Redis: what one turned on, the other lists. */
describe('tool search on two instances sharing Redis', () => {
  let redis: PrivateRedis;
  const apps: McpApplication[] = [];
  const urls: string[] = [];
  beforeAll(async () => {
    redis = await PrivateRedis.start();
    for (let i = 0; i < 2; i++) {
      const app = await McpApplication.create(DeskModule, {
        logger: quiet,
        toolSearch: { groups: { crm: 'customers', payments: 'money' } },
        scaleOut: redisScaleOut({ redis: redis.url, keyPrefix: 'search:' }),
      });
      apps.push(app);
      const http = await app.listen(
        httpServer({
          port: 0,
          host: '127.0.0.1',
          responseMode: 'json',
          auth: { authorizationServers: ['https://as.example.com'], verifier },
        }),
      );
      urls.push(http.url);
    }
  });
  afterAll(async () => {
    for (const app of apps.splice(0)) await app.close();
    await redis.stop();
  });

  const post = async (instance: number, body: object, headers: Record<string, string>) => {
    const res = await fetch(urls[instance], {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, authorization: 'Bearer ann', ...headers },
      body: JSON.stringify(body),
    });
    return { res, json: res.status === 202 ? undefined : ((await res.json()) as { result: unknown }) };
  };
  const perRequest = async (instance: number, method: string, params: Record<string, unknown>) => {
    const body = perRequestBody(method, params);
    return (await post(instance, body, perRequestHeaders(body))).json!.result;
  };

  it('2026-07-28: a caller turns a group on through one instance and lists its tools through the other', async () => {
    await perRequest(0, 'tools/call', { name: 'activate_group', arguments: { group: 'crm' } });
    expect(names(await perRequest(1, 'tools/list', {}))).toEqual(['search_tools', 'call_tool', 'activate_group', 'customers']);
    // Both instances rank the same catalog the same way.
    const search = (instance: number) =>
      perRequest(instance, 'tools/call', { name: 'search_tools', arguments: { query: 'money back', limit: 3 } });
    const [a, b] = await Promise.all([search(0), search(1)]);
    expect(a).toEqual(b);
    expect((a as { structuredContent: { tools: { name: string }[] } }).structuredContent.tools[0].name).toBe('refund');
  });

  it('2025-11-25: a session turns a group on through one instance, and the other lists its tools for that session only', async () => {
    const open = async (instance: number) => {
      const { res } = await post(
        instance,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        },
        {},
      );
      const headers = { 'mcp-session-id': res.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
      await post(instance, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
      return headers;
    };
    const mine = await open(0);
    const other = await open(0);
    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'activate_group', arguments: { group: 'payments' } } };
    expect((await post(0, call, mine)).json!.result).toMatchObject({ content: [{ text: 'Group payments is on: its tools are listed.' }] });
    const list = { jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} };
    expect(names((await post(1, list, mine)).json!.result)).toEqual(['search_tools', 'call_tool', 'activate_group', 'transfer', 'refund']);
    // Same caller, another session: groups are kept per session where there is one.
    expect(names((await post(1, list, other)).json!.result)).toEqual(['search_tools', 'call_tool', 'activate_group']);
  });
});
