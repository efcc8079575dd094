import 'reflect-metadata';
import { McpApplication, McpModule } from 'mcpkit';
import { FilesTools } from './files.tools';
import { httpServer } from '../../src/http';
import { stdio } from '../../src/stdio';

@McpModule({
  server: {
    name: 'filesystem',
    version: '1.0.0',
    instructions: 'Reads and writes files inside the directories the client shares as roots, and nowhere else.',
  },
  providers: [FilesTools],
})
export class FilesystemModule {}

/** Serves over stdio with `--stdio`, else on http://127.0.0.1:$PORT/mcp (default 3000). */
async function main(): Promise<void> {
  const app = await McpApplication.create(FilesystemModule);
  app.enableShutdownHooks();
  if (process.argv.includes('--stdio')) {
    await app.listen(stdio());
    console.error('filesystem: serving MCP over stdio'); // stdout carries only protocol messages
    return;
  }
  const http = await app.listen(httpServer({ port: Number(process.env.PORT ?? 3000) }));
  console.error(`filesystem: serving MCP at ${http.url}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
