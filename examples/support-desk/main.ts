import 'reflect-metadata';
import { join } from 'node:path';
import { McpApplication, McpModule } from 'mcpkit';
import { DeskTools, Tickets } from './desk.tools';
import { httpServer } from '../../src/http';
import { stdio } from '../../src/stdio';

@McpModule({
  server: {
    name: 'support-desk',
    version: '1.0.0',
    instructions: 'A support desk: tickets as tools, and skills that teach how to handle them. Read skill://desk-today/SKILL.md first.',
  },
  providers: [Tickets, DeskTools],
  // Each folder of skills/ with a SKILL.md is a skill; edits are picked up while the server runs.
  skills: { folders: [join(__dirname, 'skills')] },
})
export class SupportDeskModule {}

/** Serves over stdio with `--stdio`, else on http://127.0.0.1:$PORT/mcp (default 3000). */
async function main(): Promise<void> {
  const app = await McpApplication.create(SupportDeskModule);
  app.enableShutdownHooks();
  if (process.argv.includes('--stdio')) {
    await app.listen(stdio());
    console.error('support-desk: serving MCP over stdio'); // stdout carries only protocol messages
    return;
  }
  const http = await app.listen(httpServer({ port: Number(process.env.PORT ?? 3000) }));
  console.error(`support-desk: serving MCP at ${http.url}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
