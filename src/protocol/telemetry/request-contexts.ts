type Id = string | number;

/**
 * The context of each request being served, by the session (or stateless request) serving it and the
 * request's id. A session holds one entry while it serves one request, a Map once it serves more at a
 * time: a stateless request, served alone on an object of its own, costs one entry, no Map of its own.
 * A Map, not a WeakMap, by session (cheaper per request): an entry goes with its session's last request.
 */
export class RequestContexts<C> {
  private readonly bySession = new Map<object, { id: Id; ctx: C } | Map<Id, C>>();

  get(session: object, id: Id): C | undefined {
    const entry = this.bySession.get(session);
    if (entry === undefined) return undefined;
    if (entry instanceof Map) return entry.get(id);
    return entry.id === id ? entry.ctx : undefined;
  }

  set(session: object, id: Id, ctx: C): void {
    const entry = this.bySession.get(session);
    if (entry === undefined) this.bySession.set(session, { id, ctx });
    else if (entry instanceof Map) entry.set(id, ctx);
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
      if (entry.size === 0) this.bySession.delete(session);
    } else if (entry.id === id) this.bySession.delete(session);
  }

  /** How many sessions have a request being served (for tests: nothing outlives its request). */
  get size(): number {
    return this.bySession.size;
  }
}
