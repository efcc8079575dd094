import 'reflect-metadata';
import { McpApplication } from '../../src';
import { AppModule } from './app.module';

async function main(): Promise<void> {
  const pageSize = Number(/--page-size=(\d+)/.exec(process.argv.join(' '))?.[1] ?? 100);
  const app = await McpApplication.create(AppModule, { pageSize });
  app.enableShutdownHooks();
  // Streamable HTTP arrives with the HTTP transport; until then every mode serves stdio.
  await app.listen({ stdio: true });
  process.stderr.write('notes: serving MCP over stdio\n');
}

main().catch((error) => {
  process.stderr.write(`notes: failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
