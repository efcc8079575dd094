import { McpApplication, type ApplicationOptions, type ClassType } from '../../src';
import { McpTestClient, type TestClientOptions } from '../../src/testing';

/** Builds an application from a module and connects an initialized in-memory test client. */
export async function connect(module: ClassType, options: ApplicationOptions = {}, clientOptions: TestClientOptions = {}) {
  const logged: string[] = [];
  const app = await McpApplication.create(module, {
    logger: {
      error: (m, e) => logged.push(`${m} ${e instanceof Error ? e.message : ''}`),
      warn: (m) => logged.push(m),
      info: () => undefined,
    },
    ...options,
  });
  const client = await McpTestClient.connect(app.connectInMemory(), clientOptions);
  return { app, client, logged };
}
