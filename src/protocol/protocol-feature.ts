import type { Era } from '../mcp/eras';
import type { ServerCapabilities } from '../mcp/mcp-types';
import type { Registry } from '../registry/registry';
import type { StageSuppliers } from './pipeline/stages';
import type { MethodHandler } from './request-scope';

/** What a feature serves to the requests of one era. */
export interface FeatureInEra {
  /** Its methods, served while the feature's capability is on. */
  readonly methods: Readonly<Record<string, MethodHandler>>;
}

/**
 * A piece of the protocol beyond the core (tasks, skills): the capabilities it adds, for each era it
 * takes part in the methods it serves while those capabilities are on, and the stages of handlers'
 * pipelines it supplies (tasks: the task boundary). The core knows features only through this interface.
 */
export interface ProtocolFeature {
  /** The capability key that gates `methods`, and its value for the registry as it is now (undefined: off). */
  readonly capability: keyof ServerCapabilities;
  /** The capability's value for the registry as it is now, when the feature sets it (undefined: off, or set by the core). */
  capabilityFor(registry: Registry): Record<string, unknown> | undefined;
  /**
   * Extensions the feature serves now in both eras, identifier to settings, added to
   * `capabilities.extensions`; their identifiers are `ownExtensions`, which an application may not declare.
   */
  extensionsFor?(): Readonly<Record<string, Readonly<Record<string, unknown>>>> | undefined;
  readonly ownExtensions?: readonly string[];
  /**
   * The extension under which 2026-07-28 clients get this feature: while the capability is on, the
   * per-request era advertises `extensions[extension]` (settings `{}`) in its place.
   */
  readonly extension?: string;
  readonly eras: { readonly [E in Era]?: FeatureInEra };
  /** Stages of the handlers' pipelines this feature supplies (see pipeline/stages.ts). */
  readonly stages?: StageSuppliers;
}
