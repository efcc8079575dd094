/** Injection tokens under which each application registers its own services. */
export const MCP_APPLICATION = Symbol.for('mcpkit.Application');
export const MCP_OPTIONS = Symbol.for('mcpkit.Options');
export const MCP_LOGGER = Symbol.for('mcpkit.Logger');
/** The application's TaskStore (the module option `taskStore`, in-memory by default). */
export const TASK_STORE = Symbol.for('mcpkit.TaskStore');
