/** Injection tokens under which each application registers its own services. */
export const MCP_APPLICATION = Symbol.for('mcpkit.Application');
export const MCP_OPTIONS = Symbol.for('mcpkit.Options');
export const MCP_LOGGER = Symbol.for('mcpkit.Logger');
