import 'reflect-metadata';
import { McpApplication, McpModule, type ClassType } from 'mcpkit';
import { redisScaleOut } from 'mcpkit/redis';
import { ReportSettings, ReportTools } from './report.tools';
import { httpServer } from '../../src/http';

export function reportsModule(settings: ReportSettings): ClassType {
  @McpModule({
    server: {
      name: 'sales-reports',
      version: '1.0.0',
      instructions: 'salesReport builds a report as a task: poll it or wait for its result.',
    },
    providers: [{ provide: ReportSettings, useValue: settings }, ReportTools],
    // Finished reports are kept an hour at most; each client may run 8 at a time.
    tasks: { maxTtlMs: 3_600_000, maxActivePerOwner: 8 },
  })
  class ReportsModule {}
  return ReportsModule;
}

/**
 * One instance of the reports server on http://127.0.0.1:$PORT/mcp. Start several with the same
 * REDIS_URL (a URL, or a unix socket path) and put any load balancer in front: tasks (RedisTaskStore),
 * sessions and SSE streams live in Redis, so any instance serves any request.
 */
async function main(): Promise<void> {
  const redis = process.env.REDIS_URL;
  if (!redis) throw new Error('Set REDIS_URL, for example redis://127.0.0.1:6379');
  const port = Number(process.env.PORT ?? 3000);
  const settings = new ReportSettings(Number(process.env.STEP_MS ?? 1000), process.env.INSTANCE_NAME ?? `pid ${process.pid}`);
  const app = await McpApplication.create(reportsModule(settings), {
    scaleOut: redisScaleOut({ redis, keyPrefix: process.env.REDIS_PREFIX ?? 'sales-reports:' }),
  });
  app.enableShutdownHooks();
  const http = await app.listen(httpServer({ port }));
  console.error(`sales-reports (${settings.instance}): serving MCP at ${http.url} (tasks in Redis at ${redis})`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
