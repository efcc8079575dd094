import type { ToolDefinition } from '../mcp/mcp-types';
import { UI_EXTENSION } from './view.types';

/** True when a client's capabilities declare the MCP Apps extension (`extensions["io.modelcontextprotocol/ui"]`). */
export function declaresUiExtension(capabilities: object | undefined): boolean {
  const extensions = (capabilities as { extensions?: unknown } | undefined)?.extensions;
  if (typeof extensions !== 'object' || extensions === null) return false;
  const settings = (extensions as Record<string, unknown>)[UI_EXTENSION];
  return typeof settings === 'object' && settings !== null;
}

const stripped = new WeakMap<ToolDefinition, ToolDefinition>();

/** A tool definition without its view metadata (`_meta.ui`, `_meta["ui/resourceUri"]`), for clients without the extension. */
export function withoutViewMetadata(definition: ToolDefinition): ToolDefinition {
  const meta = definition._meta;
  if (!meta || (!('ui' in meta) && !('ui/resourceUri' in meta))) return definition;
  let plain = stripped.get(definition);
  if (!plain) {
    const { ui: _ui, 'ui/resourceUri': _flat, ...rest } = meta;
    const { _meta: _all, ...fields } = definition;
    plain = Object.freeze(Object.keys(rest).length > 0 ? { ...fields, _meta: rest } : fields);
    stripped.set(definition, plain);
  }
  return plain;
}
