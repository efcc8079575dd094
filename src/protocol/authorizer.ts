import { ForbiddenError } from '../auth/auth.errors';
import type { CanActivate, GuardClass, GuardContext } from '../contracts/guard';
import type { AuthInfo } from '../context/mcp-context';
import type { HandlerAccess, HandlerRef } from '../registry/descriptors';
import type { TransportExtra } from './request-scope';

/** Who is calling, for authorization: a verified principal, nobody, or the trusted local user (see `TransportExtra.local`). */
export type Caller = AuthInfo | typeof LOCAL_USER | undefined;

/** The local user of a stdio or in-process connection without authentication: every requirement is waived. */
export const LOCAL_USER: unique symbol = Symbol('mcpkit.localUser');

/** The caller of a request, from what its transport established. */
export function callerOf(extra: TransportExtra | undefined): Caller {
  if (extra?.auth) return extra.auth;
  return extra?.local ? LOCAL_USER : undefined;
}

/** Turns a guard class into its instance (through the application's container). */
export type ResolveGuard = (guard: GuardClass) => CanActivate;

/**
 * The one place per-handler requirements are decided. The rule: a handler without requirements (no
 * scope, no guard, or `@Public`) is usable by anyone the transport let in; any other handler needs an
 * authenticated caller (`auth` present) holding every required scope, and every guard must allow.
 * The local user of a stdio or in-process connection without authentication passes every check.
 */
export class Authorizer {
  private readonly instances = new Map<GuardClass, CanActivate>();

  constructor(private readonly resolveGuard: ResolveGuard) {}

  /**
   * Rejects with ForbiddenError (naming every scope the operation needs) unless the caller may use the
   * handler: a handler without requirements, and the local user, always may.
   */
  async assert(ref: HandlerRef, auth: Caller): Promise<void> {
    const access = ref.access;
    if (!access.restricted || auth === LOCAL_USER) return;
    if (!auth) throw new ForbiddenError(`${describe(access)} requires an authenticated caller`, access.scopes);
    const missing = access.scopes.filter((s) => !auth.scopes?.includes(s));
    if (missing.length > 0) throw new ForbiddenError(`${describe(access)} requires scopes: ${missing.join(' ')}`, access.scopes);
    if (!(await this.guardsAllow(ref, auth))) throw new ForbiddenError(`${describe(access)} is not allowed for this caller`, access.scopes);
  }

  /** Whether the caller may use the handler (for lists). */
  async allows(ref: HandlerRef, auth: Caller): Promise<boolean> {
    if (auth === LOCAL_USER) return true;
    if (!auth || !this.scopesAllow(ref.access, auth)) return !ref.access.restricted;
    try {
      return await this.guardsAllow(ref, auth);
    } catch (error) {
      // A guard may refuse by throwing ForbiddenError (with its own message for calls): hidden from lists.
      if (error instanceof ForbiddenError) return false;
      throw error;
    }
  }

  /** The scope part of the rule alone: no guard runs. */
  scopesAllow(access: HandlerAccess, auth: Caller): boolean {
    if (!access.restricted || auth === LOCAL_USER) return true;
    if (!auth) return false;
    return access.scopes.every((s) => auth.scopes?.includes(s));
  }

  private async guardsAllow(ref: HandlerRef, auth: AuthInfo): Promise<boolean> {
    const access = ref.access;
    if (access.guards.length === 0) return true;
    const context: GuardContext = Object.freeze({
      auth,
      kind: access.kind,
      name: access.name,
      handler: ref.where,
      annotations: access.annotations,
      _meta: access._meta,
      requiredScopes: access.scopes,
    });
    for (const guard of access.guards) {
      if ((await this.guard(guard).canActivate(context)) !== true) return false;
    }
    return true;
  }

  /** Guards are resolved once per application, like singleton providers. */
  private guard(cls: GuardClass): CanActivate {
    let instance = this.instances.get(cls);
    if (!instance) {
      instance = this.resolveGuard(cls);
      this.instances.set(cls, instance);
    }
    return instance;
  }
}

function describe(access: HandlerAccess): string {
  return `${access.kind === 'template' ? 'Resource template' : access.kind[0].toUpperCase() + access.kind.slice(1)} "${access.name}"`;
}
