/**
 * `mcpkit/stdio`: serving one client over this process's stdin and stdout, `await app.listen(stdio())`
 * (how desktop clients start a server). A process that serves stdio only loads no HTTP code.
 *
 * @module mcpkit/stdio
 */
export { stdio } from '../serving/stdio.door';
export type { StdioOptions } from '../transports/stdio.transport';
