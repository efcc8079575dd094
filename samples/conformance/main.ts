import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { McpApplication } from '../../src';
import { ConformanceModule } from './conformance.module';
import { httpServer } from '../../src/http';

/** The sample's skills: beside this file when run from source, in samples/ when run from dist/. */
const SKILLS = existsSync(join(__dirname, 'skills'))
  ? join(__dirname, 'skills')
  : join(__dirname, '..', '..', '..', 'samples', 'conformance', 'skills');

/** Serves the conformance fixtures over Streamable HTTP on 127.0.0.1:$PORT/mcp (default 3000). */
async function main(): Promise<void> {
  // Agent Skills (io.modelcontextprotocol/skills), for the sep-2640 scenarios. Given here, not in the module,
  // which the fetch-handler tests also bundle for runtimes without a file system (workerd).
  const app = await McpApplication.create(ConformanceModule, { skills: { folders: [SKILLS] } });
  app.enableShutdownHooks();
  const http = await app.listen(httpServer({ port: Number(process.env.PORT ?? 3000) }));
  process.stderr.write(`conformance server at ${http.url}\n`);
}

main().catch((error) => {
  process.stderr.write(`conformance server failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
