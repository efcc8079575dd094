import 'reflect-metadata';
import { PGlite } from '@electric-sql/pglite';
import { McpApplication, McpModule, type ClassType } from 'mcpkit';
import { openShopDatabase } from './shop.database';
import { ShopTools } from './shop.tools';
import { registerRowResources, TableResources } from './tables.resources';
import { httpServer } from '../../src/http';
import { stdio } from '../../src/stdio';

/** The module, around one open database: the PGlite instance is a provider like any service. */
export function shopModule(db: PGlite): ClassType {
  @McpModule({
    server: {
      name: 'shop-database',
      version: '1.0.0',
      instructions: 'A small shop in Postgres. Read db://tables/{table} to see a table; the tools search and place orders.',
    },
    providers: [{ provide: PGlite, useValue: db }, ShopTools, TableResources],
  })
  class ShopModule {}
  return ShopModule;
}

/**
 * Serves the shop over stdio with `--stdio`, else on http://127.0.0.1:$PORT/mcp (default 3000).
 * DATABASE_DIR keeps the data in that directory; without it the database lives in memory.
 */
async function main(): Promise<void> {
  const db = await openShopDatabase(process.env.DATABASE_DIR || undefined);
  const app = await McpApplication.create(shopModule(db));
  await registerRowResources(app, db);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    // Close the application first (in-flight calls finish), then the database (its files are flushed).
    process.once(signal, () => {
      app
        .close()
        .then(() => db.close())
        .then(
          () => process.exit(0),
          (error: unknown) => {
            console.error(error);
            process.exit(1);
          },
        );
    });
  }
  if (process.argv.includes('--stdio')) {
    await app.listen(stdio());
    console.error('shop-database: serving MCP over stdio'); // stdout carries only protocol messages
    return;
  }
  const http = await app.listen(httpServer({ port: Number(process.env.PORT ?? 3000) }));
  console.error(`shop-database: serving MCP at ${http.url}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
