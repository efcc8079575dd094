import { MetaKey, TASKS_EXTENSION } from '../../mcp/eras';
import { declaresExtension } from '../../mcp/extensions';
import { McpError } from '../../mcp/mcp.error';
import type { ServerCapabilities } from '../../mcp/mcp-types';
import type { ListKind, Registry } from '../../registry/registry';
import { type Authorizer, type Caller, callerOf } from '../authorizer';
import type { MethodHandler } from '../request-scope';
import type { SubscriptionHub } from './subscriptions';
import { missingCapability } from './envelope';

/** The `notifications` filter of a `subscriptions/listen` request. */
export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
  /** Tasks extension: the tasks whose `notifications/tasks` the stream hears. */
  taskIds?: string[];
}

export interface ListenEnv {
  readonly hub: SubscriptionHub;
  readonly registry: Registry;
  readonly authorizer: Authorizer;
  capabilities(): ServerCapabilities;
}

/** Bounds of a filter: a stream names at most this many resources, each URI at most this long. */
export const MAX_RESOURCE_SUBSCRIPTIONS = 256;
export const MAX_SUBSCRIBED_URI_LENGTH = 4096;

const FLAGS: readonly [keyof SubscriptionFilter, ListKind][] = [
  ['toolsListChanged', 'tools'],
  ['promptsListChanged', 'prompts'],
  ['resourcesListChanged', 'resources'],
];

/**
 * `subscriptions/listen` (2026-07-28): acknowledges the subset of the filter the server honours, then
 * keeps the request open, delivering the change notifications it names, each tagged with the
 * subscription id (the request's id). The client ends it by closing the stream (HTTP) or with
 * `notifications/cancelled` (stdio); the server ends it on shutdown with a final result.
 */
export function listenHandler(env: ListenEnv): MethodHandler {
  return async (params, scope) => {
    const wanted = readFilter(params.notifications);
    await env.hub.ready();
    const honoured = await honour(wanted, env, callerOf(scope.extra));
    // Status notifications of tasks: only to a client that declared the tasks extension, when the server offers it.
    if (wanted.taskIds && !declaresExtension(scope.peer.clientCapabilities, TASKS_EXTENSION)) {
      throw missingCapability(
        { extensions: { [TASKS_EXTENSION]: {} } },
        `the tasks extension ${TASKS_EXTENSION} (for notifications.taskIds)`,
      );
    }
    if (wanted.taskIds && env.capabilities().tasks) honoured.taskIds = wanted.taskIds;
    const tag = { [MetaKey.subscriptionId]: scope.id };
    if (scope.cancelled) return {};
    return new Promise((resolve) => {
      const signal = scope.signal;
      let remove: () => void = () => undefined;
      const stop = (result: Record<string, unknown>) => {
        signal.removeEventListener('abort', cancelled);
        remove();
        resolve(result);
      };
      // The client left: its request is cancelled, so this result is never sent.
      const cancelled = () => stop({});
      // The ack goes out first: it is handed to the stream before any change can be. notify never rejects
      // (the session logs what its sink could not send), here and in deliver below.
      void scope.outbound.notify('notifications/subscriptions/acknowledged', { _meta: tag, notifications: honoured });
      if (signal.aborted) return stop({});
      signal.addEventListener('abort', cancelled, { once: true });
      remove = env.hub.add({
        lists: new Set(FLAGS.filter(([flag]) => honoured[flag] === true).map(([, list]) => list)),
        uris: new Set(honoured.resourceSubscriptions ?? []),
        taskIds: new Set(honoured.taskIds ?? []),
        owner: scope.owner,
        holder: scope.session ?? scope,
        deliver: (method, params) => void scope.outbound.notify(method, { ...params, _meta: tag }),
        end: () => stop({ _meta: tag }),
      });
    });
  };
}

/** Checks the filter's shape (-32602 when wrong); unknown members are ignored. */
function readFilter(value: unknown): SubscriptionFilter {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw McpError.invalidParams('Invalid params: "notifications" must be an object');
  }
  const raw = value as Record<string, unknown>;
  const filter: SubscriptionFilter = {};
  for (const [flag] of FLAGS) {
    const v = raw[flag];
    if (v === undefined) continue;
    if (typeof v !== 'boolean') throw McpError.invalidParams(`Invalid params: "notifications.${flag}" must be a boolean`);
    (filter as Record<string, unknown>)[flag] = v;
  }
  const uris = raw.resourceSubscriptions;
  if (uris !== undefined) {
    if (!Array.isArray(uris) || !uris.every((u) => typeof u === 'string')) {
      throw McpError.invalidParams('Invalid params: "notifications.resourceSubscriptions" must be an array of strings');
    }
    if (uris.length > MAX_RESOURCE_SUBSCRIPTIONS) {
      throw McpError.invalidParams(
        `Invalid params: "notifications.resourceSubscriptions" names more than ${MAX_RESOURCE_SUBSCRIPTIONS} resources`,
      );
    }
    if (uris.some((u: string) => u.length > MAX_SUBSCRIBED_URI_LENGTH)) {
      throw McpError.invalidParams(
        `Invalid params: a URI in "notifications.resourceSubscriptions" is longer than ${MAX_SUBSCRIBED_URI_LENGTH} characters`,
      );
    }
    filter.resourceSubscriptions = [...new Set(uris)];
  }
  const ids = raw.taskIds;
  if (ids !== undefined) {
    if (!Array.isArray(ids) || !ids.every((u) => typeof u === 'string') || ids.length > MAX_RESOURCE_SUBSCRIPTIONS) {
      throw McpError.invalidParams(
        `Invalid params: "notifications.taskIds" must be an array of at most ${MAX_RESOURCE_SUBSCRIPTIONS} strings`,
      );
    }
    filter.taskIds = [...new Set(ids)];
  }
  return filter;
}

/**
 * The subset the server honours: list changes of the lists it has, and updates of the resources it
 * knows (by URI or template) that this caller may read.
 */
async function honour(wanted: SubscriptionFilter, env: ListenEnv, caller: Caller): Promise<SubscriptionFilter> {
  const caps = env.capabilities();
  const has: Record<ListKind, boolean> = { tools: !!caps.tools, prompts: !!caps.prompts, resources: !!caps.resources };
  const honoured: SubscriptionFilter = {};
  for (const [flag, list] of FLAGS) if (wanted[flag] === true && has[list]) (honoured as Record<string, unknown>)[flag] = true;
  if (wanted.resourceSubscriptions && caps.resources?.subscribe) {
    // Each URI checked, and watched (a proxied one subscribes at its server), at once rather than one after another.
    const checked = await Promise.all(
      wanted.resourceSubscriptions.map(async (uri) => {
        const target = env.registry.resource(uri) ?? env.registry.matchTemplate(uri)?.descriptor;
        if (!target || !(await env.authorizer.allows(target, caller))) return undefined;
        // A resource that cannot be watched (its remote server refused) is not honoured.
        return (await target.watch?.(uri).then(
          () => true,
          () => false,
        )) === false
          ? undefined
          : uri;
      }),
    );
    const allowed = checked.filter((uri): uri is string => uri !== undefined);
    if (allowed.length > 0) honoured.resourceSubscriptions = allowed;
  }
  return honoured;
}
