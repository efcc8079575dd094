import type { ToolDefinition } from '../mcp/mcp-types';

/**
 * A tool as tool search sees it: its definition in the `tools/list` shape, plus the tags an author gave it
 * (the service it talks to, a feature area). Tags are searched as words and filter a search; a search
 * answers the definition without them.
 */
export interface SearchableTool extends ToolDefinition {
  /** Words that group tools, e.g. `github` or `billing`; a search may keep only the tools carrying one of them. */
  readonly tags?: readonly string[];
}
