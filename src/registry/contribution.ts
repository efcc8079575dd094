import type { PromptDescriptor, ResourceDescriptor, TemplateDescriptor, ToolDescriptor } from './descriptors';

/**
 * Descriptors made outside the decorators: primitives registered at runtime, mounted from another
 * application, or proxied from a remote server. The registry builder merges them after the decorated
 * ones, with the same collision checks.
 */
export interface Contribution {
  readonly tools?: readonly ToolDescriptor[];
  readonly resources?: readonly ResourceDescriptor[];
  readonly templates?: readonly TemplateDescriptor[];
  readonly prompts?: readonly PromptDescriptor[];
  /**
   * False when resource names may repeat (a remote server's: MCP does not require names to be unique);
   * URIs and templates are still checked.
   */
  readonly uniqueResourceNames?: boolean;
}
