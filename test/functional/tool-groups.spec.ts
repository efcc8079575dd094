import { McpApplication, McpModule, Tags } from '../../src';
import { AccountTools, DeskTools } from '../fixtures/desk.tools';
import { StaticTokenVerifier } from '../../src/auth';
import { httpServer } from '../../src/http';
import { McpTestClient } from '../../src/testing';
import { perRequestBody, perRequestHeaders } from '../helpers/per-request-http';
import { SseReader } from '../helpers/sse-client';

@McpModule({ providers: [DeskTools, AccountTools], server: { name: 'groups', version: '1.0.0' } })
class DeskModule {}

const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined };
const toolSearch = { groups: { crm: 'customers and sales', payments: 'moving money' }, pinned: ['forecast'] };
const names = (listed: unknown) => (listed as { tools: { name: string }[] }).tools.map((t) => t.name);
const LIST_CHANGED = 'notifications/tools/list_changed';
/** What tools/list answers with payments on: its tools, by a tool's own tags or its class's, and the pinned one. */
const PAYMENTS_ON = ['search_tools', 'call_tool', 'activate_group', 'transfer', 'refund', 'forecast', 'billAccount'];

describe('tool groups', () => {
  it('lists a group tool; a session that turns a group on lists its tools and is told, and no other session is', async () => {
    const app = await McpApplication.create(DeskModule, { logger: quiet, toolSearch });
    const mine = await McpTestClient.connect(app.connectInMemory());
    const other = await McpTestClient.connect(app.connectInMemory());
    expect(names(await mine.request('tools/list'))).toEqual(['search_tools', 'call_tool', 'activate_group', 'forecast']);
    const group = (await mine.request('tools/list')) as { tools: { name: string; inputSchema: unknown; description: string }[] };
    expect(group.tools[2].inputSchema).toMatchObject({ properties: { group: { enum: ['crm', 'payments'] } } });
    expect(group.tools[2].description).toContain('crm (customers and sales)');

    const told = mine.waitForNotification((n) => n.method === LIST_CHANGED);
    expect(await mine.request('tools/call', { name: 'activate_group', arguments: { group: 'crm' } })).toEqual({
      content: [{ type: 'text', text: 'Group crm is on: its tools are listed.' }],
    });
    await told;
    // The class's tag counts for each of its tools (@Tags), beside a tool's own.
    expect(names(await mine.request('tools/list'))).toEqual([
      'search_tools',
      'call_tool',
      'activate_group',
      'customers',
      'forecast',
      'openAccount',
      'billAccount',
    ]);
    expect(names(await other.request('tools/list'))).toEqual(['search_tools', 'call_tool', 'activate_group', 'forecast']);

    // The other session's own change reaches it alone: by then, mine was told exactly once.
    const otherTold = other.waitForNotification((n) => n.method === LIST_CHANGED);
    await other.request('tools/call', { name: 'activate_group', arguments: { group: 'payments' } });
    await otherTold;
    expect(mine.notifications.filter((n) => n.method === LIST_CHANGED)).toHaveLength(1);
    expect(other.notifications.filter((n) => n.method === LIST_CHANGED)).toHaveLength(1);
    expect(names(await other.request('tools/list'))).toEqual(PAYMENTS_ON);

    // Off again; turning on what is on changes nothing and tells nothing.
    await mine.request('tools/call', { name: 'activate_group', arguments: { group: 'crm', active: false } });
    expect(names(await mine.request('tools/list'))).toEqual(['search_tools', 'call_tool', 'activate_group', 'forecast']);
    await other.request('tools/call', { name: 'activate_group', arguments: { group: 'payments' } });
    expect(await other.request('tools/call', { name: 'activate_group', arguments: { group: 'nope' } })).toMatchObject({
      isError: true,
      content: [{ text: '"group" must be one of crm, payments' }],
    });
    expect(other.notifications.filter((n) => n.method === LIST_CHANGED)).toHaveLength(1);
    await app.close();
  });

  describe('in the 2026-07-28 era, per authenticated caller', () => {
    let app: McpApplication;
    let url: string;
    const open: SseReader[] = [];
    beforeAll(async () => {
      app = await McpApplication.create(DeskModule, { logger: quiet, toolSearch });
      const verifier = new StaticTokenVerifier({ ann: { subject: 'ann', scopes: [] }, bob: { subject: 'bob', scopes: [] } });
      ({ url } = await app.listen(
        httpServer({ port: 0, host: '127.0.0.1', auth: { authorizationServers: ['https://as.example.com'], verifier } }),
      ));
    });
    afterAll(async () => {
      await Promise.all(open.map((r) => r.disconnect()));
      await app.close();
    });

    const init = (method: string, params: Record<string, unknown>, token: string) => {
      const body = perRequestBody(method, params);
      return { method: 'POST', headers: { ...perRequestHeaders(body), authorization: `Bearer ${token}` }, body: JSON.stringify(body) };
    };
    const post = async (method: string, params: Record<string, unknown>, token: string) =>
      ((await (await fetch(url, init(method, params, token))).json()) as { result: unknown }).result;
    const listen = async (token: string) => {
      const reader = await SseReader.open(url, init('subscriptions/listen', { notifications: { toolsListChanged: true } }, token));
      open.push(reader);
      await reader.waitFor((r) => r.messages.length >= 1);
      return reader;
    };
    const told = (r: SseReader) => r.messages.filter((m) => m.method === LIST_CHANGED).length;

    it("tells only the caller's own listen streams, and lists its groups to it alone", async () => {
      const ann = await listen('ann');
      const bob = await listen('bob');
      await post('tools/call', { name: 'activate_group', arguments: { group: 'crm' } }, 'ann');
      await ann.waitFor((r) => told(r) === 1);
      expect(names(await post('tools/list', {}, 'ann'))).toContain('customers');
      expect(names(await post('tools/list', {}, 'bob'))).not.toContain('customers');
      await post('tools/call', { name: 'activate_group', arguments: { group: 'payments' } }, 'bob');
      await bob.waitFor((r) => told(r) === 1);
      expect([told(ann), told(bob)]).toEqual([1, 1]);
      expect(names(await post('tools/list', {}, 'bob'))).toEqual(PAYMENTS_ON);
    });
  });

  it('refuses @Tags without a tag, or with an empty one', () => {
    class Untagged {}
    expect(() => Tags()(Untagged)).toThrow('@Tags on Untagged: name at least one tag, each a non-empty string');
    expect(() => Tags('crm', '')(Untagged)).toThrow('@Tags on Untagged: name at least one tag, each a non-empty string');
  });

  it('refuses to keep groups for an anonymous request without a session', async () => {
    const app = await McpApplication.create(DeskModule, { logger: quiet, toolSearch });
    const { url } = await app.listen(httpServer({ port: 0, host: '127.0.0.1' }));
    const body = perRequestBody('tools/call', { name: 'activate_group', arguments: { group: 'crm' } });
    const answer = (await (await fetch(url, { method: 'POST', headers: perRequestHeaders(body), body: JSON.stringify(body) })).json()) as {
      result: unknown;
    };
    expect(answer.result).toMatchObject({
      isError: true,
      content: [{ text: 'Tool groups are kept per session or per authenticated caller, and this request has neither' }],
    });
    await app.close();
  });
});
