import type { PromptDefinition, ResourceDefinition, ResourceTemplateDefinition, ToolDefinition } from '../mcp/mcp-types';
import type { PromptDescriptor, ResourceDescriptor, TemplateDescriptor, ToolDescriptor } from './descriptors';
import type { UriVariables } from './uri-template';
import type { ViewsOptions } from '../views/view.types';

/** A kind of primitive that can be enabled, disabled or removed at runtime. */
export type PrimitiveKind = 'tool' | 'resource' | 'template' | 'prompt';
/** The lists whose changes clients hear about (`notifications/<list>/list_changed`). */
export type ListKind = 'tools' | 'resources' | 'prompts';

/**
 * Which kinds of primitive the registry holds (hidden or not): what server capabilities derive from.
 * Removing or disabling a primitive does not change them; adding providers can.
 */
export interface RegistryKinds {
  readonly tools: boolean;
  readonly resources: boolean;
  readonly prompts: boolean;
  readonly completions: boolean;
  /** Some tool may run as a task. */
  readonly taskTools: boolean;
}

const LIST_OF: Record<PrimitiveKind, ListKind> = { tool: 'tools', resource: 'resources', template: 'resources', prompt: 'prompts' };

/**
 * Everything a server offers, by kind and key. Built by `buildRegistry`; at runtime primitives can be
 * disabled, enabled, removed, or the whole content replaced by a rebuild, and listeners hear which
 * list changed. Lookups and lists only ever see enabled primitives.
 */
export class Registry {
  private readonly hidden: Record<PrimitiveKind, Set<string>> = {
    tool: new Set(),
    resource: new Set(),
    template: new Set(),
    prompt: new Set(),
  };
  private readonly removed: Record<PrimitiveKind, Set<string>> = {
    tool: new Set(),
    resource: new Set(),
    template: new Set(),
    prompt: new Set(),
  };
  private readonly listeners = new Set<(list: ListKind) => void>();
  private readonly kindListeners = new Set<(kinds: RegistryKinds, previous: RegistryKinds) => void>();
  private cache: Partial<Record<string, unknown[]>> = {};
  /** Bumped on every change; serialized pages of an older version are stale. */
  version = 0;
  /** Who gets the view metadata of tools (application option `views.metadata`); kept across `replaceWith`. */
  viewMetadata: ViewsOptions['metadata'] = 'all-clients';

  constructor(
    private tools: Map<string, ToolDescriptor>,
    private resources: Map<string, ResourceDescriptor>,
    private templates: TemplateDescriptor[],
    private prompts: Map<string, PromptDescriptor>,
  ) {}

  tool(name: string): ToolDescriptor | undefined {
    return this.visible('tool', name) ? this.tools.get(name) : undefined;
  }

  resource(uri: string): ResourceDescriptor | undefined {
    return this.visible('resource', uri) ? this.resources.get(uri) : undefined;
  }

  prompt(name: string): PromptDescriptor | undefined {
    return this.visible('prompt', name) ? this.prompts.get(name) : undefined;
  }

  /** Finds the enabled template matching a URI, in declaration order. */
  matchTemplate(uri: string): { descriptor: TemplateDescriptor; variables: UriVariables } | undefined {
    for (const descriptor of this.templates) {
      if (!this.visible('template', descriptor.template.template)) continue;
      const variables = descriptor.template.match(uri);
      if (variables) return { descriptor, variables };
    }
    return undefined;
  }

  templateByPattern(uriTemplate: string): TemplateDescriptor | undefined {
    return this.visible('template', uriTemplate) ? this.templates.find((t) => t.template.template === uriTemplate) : undefined;
  }

  toolDefinitions(): ToolDefinition[] {
    return this.list('tools', () => this.toolDescriptors().map((t) => t.definition));
  }

  resourceDefinitions(): ResourceDefinition[] {
    return this.list('resources', () => this.resourceDescriptors().map((r) => r.definition));
  }

  templateDefinitions(): ResourceTemplateDefinition[] {
    return this.list('templates', () => this.templateDescriptors().map((t) => t.definition));
  }

  promptDefinitions(): PromptDefinition[] {
    return this.list('prompts', () => this.promptDescriptors().map((p) => p.definition));
  }

  /** The enabled tools, in list order (what per-caller lists are filtered from). */
  toolDescriptors(): ToolDescriptor[] {
    return this.list('tool', () => [...this.tools.values()].filter((t) => this.visible('tool', t.name)));
  }

  resourceDescriptors(): ResourceDescriptor[] {
    return this.list('resource', () => [...this.resources.values()].filter((r) => this.visible('resource', r.uri)));
  }

  templateDescriptors(): TemplateDescriptor[] {
    return this.list('template', () => this.templates.filter((t) => this.visible('template', t.template.template)));
  }

  promptDescriptors(): PromptDescriptor[] {
    return this.list('prompt', () => [...this.prompts.values()].filter((p) => this.visible('prompt', p.name)));
  }

  get hasTools(): boolean {
    return this.tools.size > 0;
  }
  get hasResources(): boolean {
    return this.resources.size > 0 || this.templates.length > 0;
  }
  get hasPrompts(): boolean {
    return this.prompts.size > 0;
  }
  /** Some tool may run as a task. */
  get hasTaskTools(): boolean {
    return [...this.tools.values()].some((t) => t.taskSupport !== 'forbidden');
  }
  get hasCompletions(): boolean {
    return this.templates.some((t) => t.completers.size > 0) || [...this.prompts.values()].some((p) => p.completers.size > 0);
  }

  /** The kinds held now (a fresh object each call; compare fields, not identity). */
  kinds(): RegistryKinds {
    return {
      tools: this.hasTools,
      resources: this.hasResources,
      prompts: this.hasPrompts,
      completions: this.hasCompletions,
      taskTools: this.hasTaskTools,
    };
  }

  /**
   * Listens to changes of `kinds()` (after `replaceWith`, i.e. `app.addProviders()`), so that server
   * capabilities can be recomputed; called after the list-change listeners. Returns the function that stops listening.
   */
  onKindsChange(listener: (kinds: RegistryKinds, previous: RegistryKinds) => void): () => void {
    this.kindListeners.add(listener);
    return () => this.kindListeners.delete(listener);
  }

  /** Shows or hides a primitive; returns false when there is no such primitive. */
  setEnabled(kind: PrimitiveKind, key: string, enabled: boolean): boolean {
    if (!this.has(kind, key)) return false;
    const hidden = this.hidden[kind];
    if (hidden.has(key) === !enabled) return true;
    if (enabled) hidden.delete(key);
    else hidden.add(key);
    this.changed(kind);
    return true;
  }

  /** Removes a primitive for good (a later rebuild does not bring it back). */
  remove(kind: PrimitiveKind, key: string): boolean {
    if (!this.has(kind, key)) return false;
    this.removed[kind].add(key);
    this.changed(kind);
    return true;
  }

  /** Forgets that a primitive was hidden or removed (it is being registered again under the same key). */
  forget(kind: PrimitiveKind, key: string): void {
    this.hidden[kind].delete(key);
    this.removed[kind].delete(key);
  }

  /** Takes the content of a fresh build (after providers were added), keeping what was hidden or removed. */
  replaceWith(next: Registry): void {
    const kindsBefore = this.kinds();
    const before = {
      tools: this.toolDefinitions(),
      resources: [...this.resourceDefinitions(), ...this.templateDefinitions()],
      prompts: this.promptDefinitions(),
    };
    this.tools = next.tools;
    this.resources = next.resources;
    this.templates = next.templates;
    this.prompts = next.prompts;
    this.version++;
    this.cache = {};
    const after = {
      tools: this.toolDefinitions(),
      resources: [...this.resourceDefinitions(), ...this.templateDefinitions()],
      prompts: this.promptDefinitions(),
    };
    for (const list of ['tools', 'resources', 'prompts'] as const) {
      if (before[list].length !== after[list].length || before[list].some((d, i) => d !== after[list][i])) this.emit(list);
    }
    const kindsAfter = this.kinds();
    if ((Object.keys(kindsAfter) as (keyof RegistryKinds)[]).some((k) => kindsAfter[k] !== kindsBefore[k])) {
      for (const listener of this.kindListeners) listener(kindsAfter, kindsBefore);
    }
  }

  /** Listens to list changes; returns the function that stops listening. */
  onChange(listener: (list: ListKind) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private has(kind: PrimitiveKind, key: string): boolean {
    if (this.removed[kind].has(key)) return false;
    switch (kind) {
      case 'tool':
        return this.tools.has(key);
      case 'resource':
        return this.resources.has(key);
      case 'prompt':
        return this.prompts.has(key);
      case 'template':
        return this.templates.some((t) => t.template.template === key);
    }
  }

  private visible(kind: PrimitiveKind, key: string): boolean {
    return !this.hidden[kind].has(key) && !this.removed[kind].has(key);
  }

  private list<T>(key: string, build: () => T[]): T[] {
    return (this.cache[key] ??= build()) as T[];
  }

  private changed(kind: PrimitiveKind): void {
    this.version++;
    this.cache = {};
    this.emit(LIST_OF[kind]);
  }

  private emit(list: ListKind): void {
    for (const listener of this.listeners) listener(list);
  }
}
