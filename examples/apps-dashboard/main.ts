import 'reflect-metadata';
import { McpApplication, McpModule, UI_EXTENSION } from 'mcpkit';
import { DashboardTools, DashboardView } from './dashboard.view';
import { ServiceMonitor } from './service-monitor';
import { httpServer } from '../../src/http';
import { stdio } from '../../src/stdio';

@McpModule({
  server: { name: 'service-health', version: '1.0.0', instructions: 'Shows the health of our services; showDashboard draws it.' },
  providers: [ServiceMonitor, DashboardView, DashboardTools],
  // Tells hosts at initialize that this server has MCP Apps views (they are served either way).
  extensions: { [UI_EXTENSION]: {} },
})
export class DashboardModule {}

/** Serves over stdio with `--stdio`, else on http://127.0.0.1:$PORT/mcp (default 3000). */
async function main(): Promise<void> {
  const app = await McpApplication.create(DashboardModule);
  app.enableShutdownHooks();
  if (process.argv.includes('--stdio')) {
    await app.listen(stdio());
    console.error('service-health: serving MCP over stdio'); // stdout carries only protocol messages
    return;
  }
  const http = await app.listen(httpServer({ port: Number(process.env.PORT ?? 3000) }));
  console.error(`service-health: serving MCP at ${http.url}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
