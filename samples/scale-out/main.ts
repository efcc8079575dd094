import 'reflect-metadata';
import { McpApplication } from '../../src';
import { redisScaleOut } from '../../src/redis';
import { AppModule } from '../notes/app.module';
import { httpServer } from '../../src/http';

/**
 * The notes sample, ready to run as several instances behind a round-robin load balancer: tasks,
 * SSE events and sessions live in Redis, so any instance serves any request.
 *
 *   REDIS_URL=redis://127.0.0.1:6379 PORT=3001 node dist/samples/scale-out/main.js
 *   REDIS_URL=redis://127.0.0.1:6379 PORT=3002 node dist/samples/scale-out/main.js
 */
async function main(): Promise<void> {
  const redis = process.env.REDIS_URL;
  if (!redis) throw new Error('Set REDIS_URL (for example redis://127.0.0.1:6379)');
  const app = await McpApplication.create(AppModule, {
    scaleOut: redisScaleOut({ redis, keyPrefix: process.env.REDIS_PREFIX ?? 'notes:' }),
  });
  app.enableShutdownHooks();
  const http = await app.listen(httpServer({ port: Number(process.env.PORT ?? 3000), host: process.env.HOST ?? '127.0.0.1' }));
  process.stderr.write(`notes (scale-out) at ${http.url}, sharing state through ${redis}\n`);
}

main().catch((error) => {
  process.stderr.write(`notes (scale-out) failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
