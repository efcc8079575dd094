import type { HandlerRef } from '../registry/descriptors';
import { type Authorizer, type Caller, LOCAL_USER } from './authorizer';
import type { ListView } from './pagination';

interface Summary {
  readonly version: number;
  /** Some entry has a requirement: callers may see different lists. */
  readonly restricted: boolean;
  /** Some entry has a guard: visibility is decided per request. */
  readonly guarded: boolean;
  /** Every scope some entry requires: the only scopes of a caller that change what it sees. */
  readonly scopes: ReadonlySet<string>;
}

/**
 * What one caller sees of a list, with the key its pages are cached under (its visibility class):
 * when no entry has requirements, `undefined` (the one shared view); with scope requirements only, the
 * caller's relevant scopes, sorted; with any guard, no key (the view is computed for the request).
 */
export class ListViews<D extends HandlerRef & { readonly definition: unknown }> {
  private summary?: Summary;

  constructor(
    private readonly authorizer: Authorizer,
    private readonly descriptors: () => readonly D[],
    private readonly version: () => number,
  ) {}

  async view(auth: Caller): Promise<ListView<D['definition']> | undefined> {
    const summary = this.summarize();
    // The local user sees everything: the one shared view.
    if (!summary.restricted || auth === LOCAL_USER) return undefined;
    if (!summary.guarded) {
      const key = auth
        ? `+${[...new Set(auth.scopes ?? [])]
            .filter((s) => summary.scopes.has(s))
            .sort()
            .join(' ')}`
        : '-';
      return {
        key,
        items: () =>
          this.descriptors()
            .filter((d) => this.authorizer.scopesAllow(d.access, auth))
            .map((d) => d.definition),
      };
    }
    const all = this.descriptors();
    const allowed = await Promise.all(all.map((d) => this.authorizer.allows(d, auth)));
    const items = all.filter((_, i) => allowed[i]).map((d) => d.definition);
    return { items: () => items };
  }

  private summarize(): Summary {
    const version = this.version();
    if (this.summary?.version === version) return this.summary;
    const all = this.descriptors();
    this.summary = {
      version,
      restricted: all.some((d) => d.access.restricted),
      guarded: all.some((d) => d.access.guards.length > 0),
      scopes: new Set(all.flatMap((d) => d.access.scopes)),
    };
    return this.summary;
  }
}
