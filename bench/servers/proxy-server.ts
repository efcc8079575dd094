import 'reflect-metadata';
import { join } from 'node:path';
import { McpApplication, McpModule } from '../../src';
import { stdioClientTransport, streamableHttpClientTransport } from '../../src/client';
import { reportReady } from './ipc';
import { proxy } from '../../src/compose';
import { httpServer } from '../../src/http';

/**
 * An mcpkit server with no tools of its own that proxies another under the prefix `far`, serving
 * stateless Streamable HTTP. FAR=http://…/mcp reaches it over Streamable HTTP; FAR=stdio spawns the
 * mcpkit bench server as its child and reaches it over stdio (the child's pid is reported, so that the
 * harness can add the child's CPU time to this process's).
 */
@McpModule({ server: { name: 'mcpkit-bench-proxy', version: '1.0.0' }, providers: [] })
class ProxyModule {}

async function main(): Promise<void> {
  const far = process.env.FAR;
  if (!far) throw new Error('FAR is required');
  const app = await McpApplication.create(ProxyModule, {
    logger: { error: () => undefined, warn: () => undefined, info: () => undefined },
  });
  const transport =
    far === 'stdio'
      ? stdioClientTransport({
          command: process.execPath,
          args: [join(__dirname, 'mcpkit-server.js')],
          env: { MODE: 'stdio', TOOLS: '1' },
          stderr: 'inherit',
        })
      : streamableHttpClientTransport(far);
  await proxy(app, 'far', transport);
  const http = await app.listen(httpServer({ port: 0, sessions: false, keepAliveMs: 0 }));
  reportReady({ port: http.port, childPid: 'pid' in transport ? transport.pid : undefined });
}

process.on('SIGINT', () => process.exit(0));
void main();
