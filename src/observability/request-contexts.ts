type Id = string | number;
type Entry<C> = { id: Id; ctx: C } | Map<Id, C>;

/**
 * The context of each request being served, by the session (or stateless request) serving it and the
 * request's id, kept here (a WeakMap by session: the entry goes with its session) rather than on the
 * protocol's objects. A session holds one entry while it serves one request, a Map once it serves more
 * at a time: a stateless request, served alone on an object of its own, costs one entry, no Map of its own.
 */
export class RequestContexts<C> {
  private readonly bySession = new WeakMap<object, Entry<C>>();
  private holders = 0;

  get(session: object, id: Id): C | undefined {
    const entry = this.bySession.get(session);
    if (entry === undefined) return undefined;
    if (entry instanceof Map) return entry.get(id);
    return entry.id === id ? entry.ctx : undefined;
  }

  set(session: object, id: Id, ctx: C): void {
    const entry = this.bySession.get(session);
    if (entry === undefined) {
      this.bySession.set(session, { id, ctx });
      this.holders++;
    } else if (entry instanceof Map) entry.set(id, ctx);
    else if (entry.id === id) entry.ctx = ctx;
    else
      this.bySession.set(
        session,
        new Map([
          [entry.id, entry.ctx],
          [id, ctx],
        ]),
      );
  }

  delete(session: object, id: Id): void {
    const entry = this.bySession.get(session);
    if (entry === undefined) return;
    if (entry instanceof Map) {
      entry.delete(id);
      if (entry.size > 0) return;
    } else if (entry.id !== id) return;
    this.bySession.delete(session);
    this.holders--;
  }

  /** How many sessions have a request being served (for tests: nothing outlives its request). */
  get size(): number {
    return this.holders;
  }
}
