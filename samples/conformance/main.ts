import 'reflect-metadata';
import { McpApplication } from '../../src';
import { ConformanceModule } from './conformance.module';

/** Serves the conformance fixtures over Streamable HTTP on 127.0.0.1:$PORT/mcp (default 3000). */
async function main(): Promise<void> {
  const app = await McpApplication.create(ConformanceModule);
  app.enableShutdownHooks();
  const { http } = await app.listen({ http: { port: Number(process.env.PORT ?? 3000) } });
  process.stderr.write(`conformance server at ${http!.url}\n`);
}

main().catch((error) => {
  process.stderr.write(`conformance server failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
