type Id = string | number;
type Entry<C> = { id: Id; ctx: C } | Map<Id, C>;

/** The slot on a session (or stateless request) where its requests' contexts are kept. */
const SLOT = Symbol('mcpkit request contexts');
type Holder<C> = { [SLOT]?: Entry<C> | undefined };

/**
 * The context of each request being served, by the session (or stateless request) serving it and the
 * request's id. A session holds one entry while it serves one request, a Map once it serves more at a
 * time: a stateless request, served alone on an object of its own, costs one entry, no Map of its own.
 * Kept in a symbol-keyed slot of the session object itself rather than in a Map by session: a stateless
 * request is a new key each time, and a Map paid an insertion and a deletion (and the key's hash) per
 * request. The slot goes with its session.
 */
export class RequestContexts<C> {
  private holders = 0;

  get(session: object, id: Id): C | undefined {
    const entry = (session as Holder<C>)[SLOT];
    if (entry === undefined) return undefined;
    if (entry instanceof Map) return entry.get(id);
    return entry.id === id ? entry.ctx : undefined;
  }

  set(session: object, id: Id, ctx: C): void {
    const holder = session as Holder<C>;
    const entry = holder[SLOT];
    if (entry === undefined) {
      holder[SLOT] = { id, ctx };
      this.holders++;
    } else if (entry instanceof Map) entry.set(id, ctx);
    else if (entry.id === id) entry.ctx = ctx;
    else
      holder[SLOT] = new Map([
        [entry.id, entry.ctx],
        [id, ctx],
      ]);
  }

  delete(session: object, id: Id): void {
    const holder = session as Holder<C>;
    const entry = holder[SLOT];
    if (entry === undefined) return;
    if (entry instanceof Map) {
      entry.delete(id);
      if (entry.size > 0) return;
    } else if (entry.id !== id) return;
    // undefined rather than `delete`: the object keeps its shape.
    holder[SLOT] = undefined;
    this.holders--;
  }

  /** How many sessions have a request being served (for tests: nothing outlives its request). */
  get size(): number {
    return this.holders;
  }
}
