import { inject } from 'tsyringe';
import { UnresolvableProviderError } from '../errors/unresolvable-provider.error';

type Ctor = abstract new (...args: never[]) => unknown;

/** The key once probed: `undefined` until then, `null` when the probe found none. */
let tokensKey: unknown;
let probed = false;

/**
 * The metadata key under which tsyringe's `@inject` records parameter tokens, found through its public
 * API (decorate a probe and see where the token lands) rather than by naming its private constant.
 * `null` when the probe finds nothing: the check below is then skipped, never wrong.
 */
function injectionTokensKey(): unknown {
  if (!probed) {
    class Probe {
      constructor(_: unknown) {}
    }
    inject('mcpkit:probe')(Probe, undefined, 0);
    const holdsProbe = (entry: unknown) =>
      entry === 'mcpkit:probe' || (typeof entry === 'object' && entry !== null && (entry as { token?: unknown }).token === 'mcpkit:probe');
    tokensKey =
      Reflect.getOwnMetadataKeys(Probe).find((k) =>
        holdsProbe((Reflect.getOwnMetadata(k, Probe) as Record<number, unknown> | undefined)?.[0]),
      ) ?? null;
    probed = true;
  }
  return tokensKey;
}

/**
 * Without `design:paramtypes` (esbuild-based runners: tsx, vitest), tsyringe knows only the
 * constructor parameters that carry `@inject`: with some of them marked, it would call the constructor
 * with `undefined` for the others, silently. Say which parameters need `@inject`. (With none marked,
 * tsyringe fails with "TypeInfo not known", which UnresolvableProviderError explains.)
 */
export function checkConstructorTokens(cls: Ctor): void {
  if (cls.length === 0 || Reflect.getMetadata('design:paramtypes', cls) !== undefined) return;
  const key = injectionTokensKey();
  if (key === null) return;
  const tokens = (Reflect.getOwnMetadata(key, cls) ?? {}) as Record<number, unknown>;
  const missing = Array.from({ length: cls.length }, (_, i) => i).filter((i) => tokens[i] === undefined);
  if (missing.length === 0 || missing.length === cls.length) return;
  throw new UnresolvableProviderError(
    cls.name,
    `its constructor parameter types were not emitted (compiled without emitDecoratorMetadata: esbuild-based ` +
      `runners such as tsx and vitest never emit them), and parameter${missing.length > 1 ? 's' : ''} ${missing.join(', ')} ` +
      `${missing.length > 1 ? 'have' : 'has'} no @inject. Put @inject(Dependency) from tsyringe on each constructor parameter, ` +
      `or compile with emitDecoratorMetadata (tsc, ts-jest, swc with decoratorMetadata).`,
  );
}
