import { type ChangeBus, type ChangeEvent, type ChangeListener, SubscriptionHub } from '../../../src/protocol/per-request/subscriptions';

/** The hub between changes and listen streams, with a bus the test controls (what another instance would send). */
describe('SubscriptionHub and its change bus', () => {
  function setup(bus: Partial<ChangeBus> = {}) {
    const logged: string[] = [];
    const hub = new SubscriptionHub((m) => logged.push(m));
    let remote: ((event: ChangeEvent) => void) | undefined;
    const published: ChangeEvent[] = [];
    hub.attach({
      publish: async (e) => void published.push(e),
      subscribe: async (listener) => {
        remote = listener;
        return async () => void (remote = undefined);
      },
      ...bus,
    });
    const got: [string, Record<string, unknown>][] = [];
    let ended = 0;
    const listener: ChangeListener = {
      lists: new Set(['tools']),
      uris: new Set(['x://a']),
      holder: {},
      deliver: (m, p) => void got.push([m, p]),
      end: () => void ended++,
    };
    return {
      hub,
      logged,
      published,
      got,
      listener,
      remote: (e: unknown) => remote!(e as ChangeEvent),
      ended: () => ended,
      subscribed: () => remote !== undefined,
    };
  }

  it('delivers well-formed events of other instances and ignores malformed ones', async () => {
    const s = setup();
    await s.hub.ready();
    s.hub.add(s.listener);
    for (const bad of [
      null,
      'x',
      { kind: 'resource' },
      { kind: 'resource', uri: 1 },
      { kind: 'lists', lists: 'tools' },
      { kind: 'lists', lists: ['tools', 'secrets'] },
      { kind: 'other' },
    ])
      s.remote(bad);
    s.remote({ kind: 'lists', lists: ['prompts', 'tools'] });
    s.remote({ kind: 'resource', uri: 'x://b' });
    s.remote({ kind: 'resource', uri: 'x://a' });
    expect(s.got).toEqual([
      ['notifications/tools/list_changed', {}],
      ['notifications/resources/updated', { uri: 'x://a' }],
    ]);
    // A remote event is not published again.
    expect(s.published).toEqual([]);
  });

  it('publishes local changes after delivering them here, and logs a bus that fails instead of rejecting', async () => {
    const s = setup({ publish: () => Promise.reject(new Error('redis down')) });
    s.hub.add(s.listener);
    await expect(s.hub.changed({ kind: 'resource', uri: 'x://a' })).resolves.toBeUndefined();
    expect(s.got).toEqual([['notifications/resources/updated', { uri: 'x://a' }]]);
    expect(s.logged).toEqual(['Could not tell the other instances of a change']);
  });

  it('retries a bus subscription that failed, and never rejects ready()', async () => {
    let attempts = 0;
    const s = setup({
      subscribe: async () => {
        attempts++;
        if (attempts === 1) throw new Error('redis down');
        return async () => undefined;
      },
    });
    await expect(s.hub.ready()).resolves.toBeUndefined();
    expect(s.logged).toEqual(['Could not listen to the changes of other instances']);
    await s.hub.ready();
    await s.hub.ready();
    expect(attempts).toBe(2);
  });

  it('ends every stream on close, stops listening to the bus, and ends a stream added later at once', async () => {
    const s = setup();
    await s.hub.ready();
    s.hub.add(s.listener);
    expect(s.hub.heldBy(s.listener.holder)).toBe(1);
    await s.hub.close();
    expect(s.ended()).toBe(1);
    expect(s.subscribed()).toBe(false);
    expect(s.hub.size).toBe(0);
    s.hub.add(s.listener);
    expect(s.ended()).toBe(2);
    expect(s.hub.size).toBe(0);
  });
});
