import type { PolicyStore } from '../../contracts/policy-store';
import type { CallToolResult, ToolDefinition } from '../../mcp/mcp-types';
import { deepFreeze } from '../../registry/definition-utils';
import { ANONYMOUS_OWNER } from '../connection';
import type { SubscriptionHub } from '../per-request/subscriptions';
import type { RequestScope } from '../request-scope';
import { errorResult } from './tool-result.mapper';

/** How long the groups a caller turned on are kept after their last change, by default: a day. */
export const GROUP_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * The groups mode of tool search: a group tool turns groups (tags) on and off for its caller, whose
 * `tools/list` then answers their tools too. What is on is kept per session where there is one, else
 * per caller (the authenticated subject; a stdio connection's own key), in the application's policy
 * store: on Redis, every instance reads the same. A change is announced to that session or caller
 * only: a `tools/list_changed` on the session, or on the caller's own `subscriptions/listen` streams.
 */
export class ToolGroups {
  readonly definition: ToolDefinition;

  constructor(
    readonly name: string,
    private readonly groups: Readonly<Record<string, string>>,
    private readonly store: PolicyStore,
    private readonly hub: SubscriptionHub,
    private readonly ttlMs: number,
    private readonly logError: (message: string, error?: unknown) => void,
  ) {
    const names = Object.keys(groups).sort();
    this.definition = deepFreeze<ToolDefinition>({
      name,
      title: 'Turn a group of tools on or off',
      description:
        'Lists the tools of a group in tools/list from now on (or stops listing them). The groups: ' +
        names.map((g) => `${g} (${groups[g]})`).join('; ') +
        '.',
      inputSchema: {
        type: 'object',
        properties: {
          group: { type: 'string', enum: names, description: 'The group.' },
          active: { type: 'boolean', description: 'true (the default) to list its tools, false to stop.' },
        },
        required: ['group'],
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    });
  }

  /** The groups the request's caller turned on; none when it has no place to keep them, or the store cannot be read. */
  async active(scope: RequestScope): Promise<ReadonlySet<string>> {
    const key = holderOf(scope);
    if (!key) return new Set();
    try {
      return new Set(await this.read(key));
    } catch (error) {
      this.logError('Could not read the tool groups a caller turned on: listing none', error);
      return new Set();
    }
  }

  /** A call of the group tool. */
  async call(args: Record<string, unknown>, scope: RequestScope): Promise<CallToolResult> {
    const { group, active = true } = args;
    if (typeof group !== 'string' || !Object.hasOwn(this.groups, group))
      return errorResult(`"group" must be one of ${Object.keys(this.groups).sort().join(', ')}`);
    if (typeof active !== 'boolean') return errorResult('"active" must be true or false');
    const key = holderOf(scope);
    if (!key) return errorResult('Tool groups are kept per session or per authenticated caller, and this request has neither');
    const { value, version } = await this.store.cacheGet(key, []);
    const groups = new Set(parse(value));
    const changed = active ? !groups.has(group) : groups.has(group);
    if (active) groups.add(group);
    else groups.delete(group);
    await this.store.cacheSet(key, JSON.stringify([...groups].sort()), this.ttlMs, version);
    if (changed) await this.announce(scope);
    return { content: [{ type: 'text', text: `Group ${group} is ${active ? 'on: its tools are listed' : 'off'}.` }] };
  }

  private async read(key: string): Promise<string[]> {
    return parse((await this.store.cacheGet(key, [])).value);
  }

  private announce(scope: RequestScope): Promise<void> {
    if (scope.peer.perRequest) return this.hub.changed({ kind: 'lists', lists: ['tools'], owner: scope.owner });
    return scope.outbound.notify('notifications/tools/list_changed', undefined);
  }
}

/** Where a request's groups are kept: its session, else its caller; undefined for an anonymous request without a session. */
function holderOf(scope: RequestScope): string | undefined {
  if (scope.peer.sessionId) return `mcpkit:groups:session:${scope.peer.sessionId}`;
  return scope.owner === ANONYMOUS_OWNER ? undefined : `mcpkit:groups:owner:${scope.owner}`;
}

function parse(value: string | undefined): string[] {
  if (value === undefined) return [];
  const groups: unknown = JSON.parse(value);
  return Array.isArray(groups) ? groups.filter((g): g is string => typeof g === 'string') : [];
}
