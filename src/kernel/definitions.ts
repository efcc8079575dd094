import type { Provider } from '../metadata/records';
import type { Contribution } from '../registry/contribution';
import type { PromptDescriptor, ResourceDescriptor, TemplateDescriptor, ToolDescriptor } from '../registry/descriptors';
import { dynamicPrompt, dynamicResource, dynamicTool } from '../registry/dynamic-builder';
import type { DynamicPrompt, DynamicResource, DynamicTool } from '../registry/dynamic-definitions';
import type { PrimitiveKind, Registry } from '../registry/registry';
import { assembleRegistry, buildDecorated, type DecoratedParts, type ProviderEntry } from '../registry/registry.builder';
import type { DependencyContainer } from 'tsyringe';
import { register, resolveAll } from './providers';
import { sessionInfo } from './session-info';
import { DuplicatePromptNameError } from '../errors/duplicate-prompt-name.error';
import { DuplicateResourceError } from '../errors/duplicate-resource.error';
import { DuplicateToolNameError } from '../errors/duplicate-tool-name.error';
import type { CustomMethodHandler, CustomMethodOptions, CustomMethods } from '../protocol/custom-methods';
import type { SessionInfo } from '../context/mcp-context';

function duplicate(kind: PrimitiveKind, key: string): Error {
  const first = 'an earlier runtime registration',
    second = 'this one';
  if (kind === 'tool') return new DuplicateToolNameError(key, first, second);
  if (kind === 'prompt') return new DuplicatePromptNameError(key, first, second);
  return new DuplicateResourceError(kind === 'template' ? `template "${key}"` : `URI "${key}"`, first, second);
}

/** The primitives registered at runtime, by key, with the definitions they were made from (for updates). */
interface Dynamic<D, T> {
  readonly defs: Map<string, D>;
  readonly descriptors: Map<string, T>;
}

/** The primitives registered at runtime, by kind (`template` is kept with `resource`). */
interface Runtime {
  readonly tools: Dynamic<DynamicTool, ToolDescriptor>;
  readonly resources: Dynamic<DynamicResource, ResourceDescriptor | TemplateDescriptor>;
  readonly prompts: Dynamic<DynamicPrompt, PromptDescriptor>;
}

const RUNTIME = 'runtime';

/**
 * What an application's surface can become at runtime: primitives shown, hidden and removed, providers
 * added, tools, resources and prompts registered from plain definitions (no decorators), and methods
 * mcpkit does not define. Every change rebuilds the registry through the same builder as bootstrap, so
 * it is checked the same way (a change that fails leaves everything as it was), list pages are rebuilt
 * once, and clients hear `list_changed` (handshake sessions and 2026-07-28 listen streams). Mounts and
 * proxies add their primitives here too, each as one contribution (see `contribute`).
 */
export class Definitions {
  /** Descriptors made outside the decorators, by source (runtime registration, each mount, each proxy). */
  private readonly contributions = new Map<string, Contribution>();
  private runtime: Runtime = {
    tools: { defs: new Map(), descriptors: new Map() },
    resources: { defs: new Map(), descriptors: new Map() },
    prompts: { defs: new Map(), descriptors: new Map() },
  };

  constructor(
    readonly registry: Registry,
    private readonly container: DependencyContainer,
    private readonly entries: ProviderEntry[],
    private readonly transient: Set<unknown>,
    /** The decorated part of the registry, built once (and again when providers are added): a runtime change only re-merges contributions. */
    private decoratedParts: DecoratedParts,
    /** The protocol engine's methods added with `addMethod`. */
    private readonly customMethods: CustomMethods,
  ) {}

  /** Shows a tool, resource, template or prompt again; clients are told the list changed. */
  enable(kind: PrimitiveKind, key: string): boolean {
    return this.registry.setEnabled(kind, key, true);
  }

  /** Hides a tool (by name), resource (by URI), template (by pattern) or prompt (by name). */
  disable(kind: PrimitiveKind, key: string): boolean {
    return this.registry.setEnabled(kind, key, false);
  }

  /**
   * Adds providers at runtime: they are registered in the container, the registry is rebuilt (with
   * the same definition checks as at bootstrap) and clients are told which lists changed.
   */
  addProviders(...providers: Provider[]): void {
    const added = providers.map((p) => register(this.container, p, this.transient)).filter((e): e is ProviderEntry => e !== undefined);
    const parts = buildDecorated([...this.entries, ...added]);
    const next = assembleRegistry(parts, [...this.contributions.values()]);
    resolveAll(this.container, added);
    this.entries.push(...added);
    this.decoratedParts = parts;
    this.registry.replaceWith(next);
  }

  /**
   * Registers a tool from a name, a JSON Schema and a handler. Its arguments are validated against
   * the schema (compiled once, here); a schema or name mcpkit cannot serve, or a name already taken,
   * throws a named definition error and changes nothing.
   */
  addTool(definition: DynamicTool): void {
    const descriptor = dynamicTool(definition);
    this.put(this.runtime.tools, 'tool', descriptor.name, definition, descriptor);
  }

  /** Replaces some members of a tool registered with `addTool` (its name included); false when there is none. */
  updateTool(name: string, changes: Partial<DynamicTool>): boolean {
    return this.update(this.runtime.tools, 'tool', name, changes, dynamicTool, (d) => d.name);
  }

  /** Removes a tool: one registered at runtime, or a decorated one (for good). */
  removeTool(name: string): boolean {
    return this.drop(this.runtime.tools, 'tool', name);
  }

  /** Registers a resource (`uri`) or resource template (`uriTemplate`) with its handler. */
  addResource(definition: DynamicResource): void {
    const built = dynamicResource(definition);
    const [kind, key, descriptor] =
      'resource' in built
        ? (['resource', built.resource.uri, built.resource] as const)
        : (['template', built.template.template.template, built.template] as const);
    this.put(this.runtime.resources, kind, key, definition, descriptor);
  }

  /** Replaces some members of a resource or template registered with `addResource`, found by URI or template. */
  updateResource(uriOrTemplate: string, changes: Partial<DynamicResource>): boolean {
    const own = this.runtime.resources.descriptors.get(uriOrTemplate);
    return this.update(
      this.runtime.resources,
      own && 'template' in own ? 'template' : 'resource',
      uriOrTemplate,
      changes,
      dynamicResource,
      (b) => ('resource' in b ? b.resource.uri : b.template.template.template),
    );
  }

  /** Removes a resource (by URI) or template (by its pattern): registered at runtime, or decorated. */
  removeResource(uriOrTemplate: string): boolean {
    const own = this.runtime.resources.descriptors.get(uriOrTemplate);
    if (own) return this.drop(this.runtime.resources, 'template' in own ? 'template' : 'resource', uriOrTemplate);
    return this.registry.remove('resource', uriOrTemplate) || this.registry.remove('template', uriOrTemplate);
  }

  /** Registers a prompt from its arguments and a handler (completers optional). */
  addPrompt(definition: DynamicPrompt): void {
    const descriptor = dynamicPrompt(definition);
    this.put(this.runtime.prompts, 'prompt', descriptor.name, definition, descriptor);
  }

  /** Replaces some members of a prompt registered with `addPrompt`; false when there is none. */
  updatePrompt(name: string, changes: Partial<DynamicPrompt>): boolean {
    return this.update(this.runtime.prompts, 'prompt', name, changes, dynamicPrompt, (d) => d.name);
  }

  /** Removes a prompt: one registered at runtime, or a decorated one (for good). */
  removePrompt(name: string): boolean {
    return this.drop(this.runtime.prompts, 'prompt', name);
  }

  /**
   * Sets (or, with undefined, drops) the descriptors of one source and rebuilds the registry. When the
   * build fails (a collision), the previous descriptors are put back and the error is thrown.
   */
  contribute(source: string, contribution: Contribution | undefined, forget: [PrimitiveKind, string][] = []): void {
    const previous = this.contributions.get(source);
    if (contribution) this.contributions.set(source, contribution);
    else this.contributions.delete(source);
    let next: Registry;
    try {
      next = assembleRegistry(this.decoratedParts, [...this.contributions.values()]);
    } catch (error) {
      if (previous) this.contributions.set(source, previous);
      else this.contributions.delete(source);
      throw error;
    }
    for (const [kind, key] of forget) this.registry.forget(kind, key);
    this.registry.replaceWith(next);
  }

  /** True while `source` contributes descriptors. */
  contributes(source: string): boolean {
    return this.contributions.has(source);
  }

  private put<D, T>(dynamic: Dynamic<D, T>, kind: PrimitiveKind, key: string, definition: D, descriptor: T, replacing?: string): void {
    if (key !== replacing && dynamic.defs.has(key)) throw duplicate(kind, key);
    const defs = new Map(dynamic.defs),
      descriptors = new Map(dynamic.descriptors);
    if (replacing !== undefined) {
      defs.delete(replacing);
      descriptors.delete(replacing);
    }
    defs.set(key, definition);
    descriptors.set(key, descriptor);
    // A new key may have been removed or hidden before: it is registered afresh. An update keeps the key's state (hidden stays hidden).
    const kinds: PrimitiveKind[] = kind === 'template' || kind === 'resource' ? ['resource', 'template'] : [kind];
    const forget = key === replacing ? [] : kinds.map((k): [PrimitiveKind, string] => [k, key]);
    this.contributeRuntime(kind, { defs, descriptors }, forget);
  }

  private update<D, T, B>(
    dynamic: Dynamic<D, T>,
    kind: PrimitiveKind,
    key: string,
    changes: Partial<D>,
    build: (d: D) => B,
    keyOf: (b: B) => string,
  ): boolean {
    const old = dynamic.defs.get(key);
    if (!old) return false;
    const definition = { ...old, ...changes };
    const built = build(definition);
    const descriptor = (
      typeof built === 'object' && built !== null && ('resource' in built || 'template' in built) ? Object.values(built)[0] : built
    ) as T;
    this.put(dynamic, kind, keyOf(built), definition, descriptor, key);
    return true;
  }

  private drop<D, T>(dynamic: Dynamic<D, T>, kind: PrimitiveKind, key: string): boolean {
    if (!dynamic.defs.has(key)) return this.registry.remove(kind, key);
    const defs = new Map(dynamic.defs),
      descriptors = new Map(dynamic.descriptors);
    defs.delete(key);
    descriptors.delete(key);
    this.contributeRuntime(kind, { defs, descriptors });
    return true;
  }

  /** Rebuilds with the runtime primitives of `kind` replaced by `given`; on success they become the application's. */
  private contributeRuntime<D, T>(kind: PrimitiveKind, given: Dynamic<D, T>, forget: [PrimitiveKind, string][] = []): void {
    const next: Runtime = { ...this.runtime, [`${kind === 'template' ? 'resource' : kind}s`]: given };
    const resources = [...next.resources.descriptors.values()];
    this.contribute(
      RUNTIME,
      {
        tools: [...next.tools.descriptors.values()],
        resources: resources.filter((r): r is ResourceDescriptor => 'uri' in r),
        templates: resources.filter((r): r is TemplateDescriptor => 'template' in r),
        prompts: [...next.prompts.descriptors.values()],
      },
      forget,
    );
    this.runtime = next;
  }

  /**
   * Serves a method mcpkit does not define (an extension's, an experimental one) with `handler(params,
   * ctx)`, whose returned object is the JSON-RPC result (anything else is an internal error, logged).
   * It runs like the built-in methods: the request's McpContext, the application's middleware (kind
   * 'method'), `scopes` checked by the authorizer, an McpError thrown is the answer and any other error
   * is -32603. `capabilities` is merged into the server's while the method exists. A method of MCP's
   * own, an empty name or one already added throws InvalidDefinitionError.
   */
  addMethod(method: string, handler: CustomMethodHandler, options?: CustomMethodOptions): void {
    this.customMethods.add(method, handler, options);
  }

  /** Stops serving a method added with `addMethod` (it is -32601 again, its capabilities gone); false when there is none. */
  removeMethod(method: string): boolean {
    return this.customMethods.remove(method);
  }

  /**
   * Listens to a notification from clients that mcpkit does not handle itself (an extension's, a custom
   * one), in both eras; `session` tells who sent it. Returns the function that stops listening.
   */
  onNotification(method: string, listener: (params: Record<string, unknown>, session: SessionInfo) => void): () => void {
    return this.customMethods.onNotification(method, (params, peer) => listener(params, sessionInfo(peer)));
  }
}
