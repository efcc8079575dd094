import 'reflect-metadata';
import { McpApplication } from '../../src';
import { AppModule } from './app.module';

/**
 * Starts the notes sample: Streamable HTTP on 127.0.0.1:$PORT/mcp (default 3000), or stdio with
 * `--stdio`. `--page-size=N` sets the page size of list methods.
 */
async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const pageSize = Number(/--page-size=(\d+)/.exec(args.join(' '))?.[1] ?? 100);
  const app = await McpApplication.create(AppModule, { pageSize });
  app.enableShutdownHooks();
  if (args.includes('--stdio')) {
    await app.listen({ stdio: true });
    process.stderr.write('notes: serving MCP over stdio\n');
    return;
  }
  const { http } = await app.listen({ http: { port: Number(process.env.PORT ?? 3000), host: process.env.HOST ?? '127.0.0.1' } });
  process.stderr.write(`notes: serving MCP at ${http!.url}\n`);
}

main().catch((error) => {
  process.stderr.write(`notes: failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
