import type { PromptDescriptor, ResourceDescriptor, TemplateDescriptor, ToolDescriptor } from './descriptors';
import type { UriVariables } from './uri-template';

/** Everything a server offers, by kind and key. Built once per application by `buildRegistry`. */
export class Registry {
  constructor(
    readonly tools: ReadonlyMap<string, ToolDescriptor>,
    readonly resources: ReadonlyMap<string, ResourceDescriptor>,
    readonly templates: readonly TemplateDescriptor[],
    readonly prompts: ReadonlyMap<string, PromptDescriptor>,
  ) {}

  /** Finds the template matching a URI, in declaration order. */
  matchTemplate(uri: string): { descriptor: TemplateDescriptor; variables: UriVariables } | undefined {
    for (const descriptor of this.templates) {
      const variables = descriptor.template.match(uri);
      if (variables) return { descriptor, variables };
    }
    return undefined;
  }

  templateByPattern(uriTemplate: string): TemplateDescriptor | undefined {
    return this.templates.find((t) => t.template.template === uriTemplate);
  }

  get hasCompletions(): boolean {
    return this.templates.some((t) => t.completers.size > 0) || [...this.prompts.values()].some((p) => p.completers.size > 0);
  }
}
