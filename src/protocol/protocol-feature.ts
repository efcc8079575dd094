import type { ServerCapabilities } from '../mcp/mcp-types';
import type { ToolDescriptor } from '../registry/descriptors';
import type { Registry } from '../registry/registry';
import type { MethodHandler, RequestScope } from './request-scope';

/** A tools/call as a feature sees it, before the plain call runs. */
export interface ToolCall {
  readonly tool: ToolDescriptor;
  readonly args: Record<string, unknown> | undefined;
  readonly params: Record<string, unknown>;
  readonly scope: RequestScope;
}

/**
 * A piece of the protocol beyond the core (tasks today): the capabilities it adds, the methods it
 * serves while those capabilities are on, and the tool calls it takes over. The core knows features
 * only through this interface.
 */
export interface ProtocolFeature {
  /** The capability key that gates `methods`, and its value for the registry as it is now (undefined: off). */
  readonly capability: keyof ServerCapabilities;
  capabilityFor(registry: Registry): Record<string, unknown> | undefined;
  /**
   * The extension under which 2026-07-28 clients get this feature: while the capability is on, the
   * per-request era advertises `extensions[extension]` (settings `{}`) in its place.
   */
  readonly extension?: string;
  readonly methods: Readonly<Record<string, MethodHandler>>;
  /** Methods it serves to 2026-07-28 requests while its capability is on (an extension's methods). */
  readonly perRequestMethods?: Readonly<Record<string, MethodHandler>>;
  /** Takes over a tools/call (returns its result), or returns undefined to let the plain call run. */
  interceptToolCall?(call: ToolCall, enabled: boolean): Promise<unknown> | undefined;
  /** The same for a 2026-07-28 tools/call (the feature reads the client's capabilities from the request). */
  interceptPerRequestToolCall?(call: ToolCall): Promise<unknown> | undefined;
}
