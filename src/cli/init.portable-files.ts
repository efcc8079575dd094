/** The entries, tests, deploy configs and READMEs of `mcpkit init --target bun|deno|workers|lambda`. */
export type PortableTarget = 'bun' | 'deno' | 'workers' | 'lambda';

export const BUN_MAIN = `import { McpApplication } from 'mcpkit';
import { fetchHandler } from 'mcpkit/fetch';
import { AppModule } from './app.module';

/**
 * Serves MCP with Bun's own HTTP server on $HOST:$PORT/mcp (default 127.0.0.1:3000). The Host header is checked:
 * ALLOWED_HOSTS names the host names clients use (comma-separated), besides localhost and 127.0.0.1.
 */
const hostname = process.env.HOST || '127.0.0.1';
const allowedHosts = ['localhost', '127.0.0.1', '[::1]', ...(process.env.ALLOWED_HOSTS ?? '').split(',').map((h) => h.trim()).filter(Boolean)];
export const app = await McpApplication.create(AppModule);
// idleTimeout 0: an SSE stream may stay quiet longer than Bun's default of 10 s.
export const server = Bun.serve({ port: Number(process.env.PORT ?? 3000), hostname, fetch: fetchHandler(app, { allowedHosts }), idleTimeout: 0 });
console.error(\`__NAME__: serving MCP at http://\${hostname}:\${server.port}/mcp\`);
`;

export const DENO_MAIN = `import { McpApplication } from 'mcpkit';
import { fetchHandler } from 'mcpkit/fetch';
import { AppModule } from './app.module.ts';

/**
 * Serves MCP with Deno's own HTTP server on $HOST:$PORT/mcp (default 127.0.0.1:3000). The Host header is checked:
 * ALLOWED_HOSTS names the host names clients use (comma-separated), besides localhost and 127.0.0.1.
 */
const hostname = Deno.env.get('HOST') || '127.0.0.1';
const allowedHosts = ['localhost', '127.0.0.1', '[::1]', ...(Deno.env.get('ALLOWED_HOSTS') ?? '').split(',').map((h) => h.trim()).filter(Boolean)];
export const app = await McpApplication.create(AppModule);
Deno.serve(
  {
    port: Number(Deno.env.get('PORT') ?? 3000),
    hostname,
    onListen: ({ port }) => console.error(\`__NAME__: serving MCP at http://\${hostname}:\${port}/mcp\`),
  },
  fetchHandler(app, { allowedHosts }),
);
`;

export const BUN_TEST = `import { afterAll, expect, test } from 'bun:test';
import { McpApplication } from 'mcpkit';
import { fetchHandler } from 'mcpkit/fetch';
import { AppModule } from '../src/app.module';
import { callAdd } from './call-add.js';

export const app = await McpApplication.create(AppModule);
afterAll(() => app.close());

test('answers tools/call add through the fetch handler', async () => {
  const answer = await callAdd(fetchHandler(app, { sessions: false }), 2, 3);
  expect(answer.result.structuredContent).toEqual({ sum: 5 });
});

test('names an invalid argument', async () => {
  const answer = await callAdd(fetchHandler(app, { sessions: false }), 'two', 3);
  expect(answer.result.isError).toBe(true);
});
`;

export const DENO_TEST = `import assert from 'node:assert/strict';
import { McpApplication } from 'mcpkit';
import { fetchHandler } from 'mcpkit/fetch';
import { AppModule } from '../src/app.module.ts';
import { callAdd } from './call-add.js';

Deno.test('answers tools/call add through the fetch handler', async () => {
  const app = await McpApplication.create(AppModule);
  try {
    const answer = await callAdd(fetchHandler(app, { sessions: false }), 2, 3);
    assert.deepEqual(answer.result.structuredContent, { sum: 5 });
    assert.equal((await callAdd(fetchHandler(app, { sessions: false }), 'two', 3)).result.isError, true);
  } finally {
    await app.close();
  }
});
`;

export const WORKER = `import { McpApplication } from 'mcpkit';
import { type FetchHandler, fetchHandler } from 'mcpkit/fetch';
import { AppModule } from './app.module';

interface Env {
  /** Comma-separated host names clients reach this worker by (wrangler.toml [vars]). */
  ALLOWED_HOSTS?: string;
}

// Made on the first request: a Worker may not start timers or make random ids while it loads.
// A Worker keeps no sessions: each request stands alone.
let handler: Promise<FetchHandler> | undefined;

export default {
  async fetch(request: Request, env: Env = {}): Promise<Response> {
    handler ??= McpApplication.create(AppModule).then((app) =>
      fetchHandler(app, {
        sessions: false,
        allowedHosts: ['localhost', '127.0.0.1', ...(env.ALLOWED_HOSTS ?? '').split(',').filter(Boolean)],
      }),
    );
    return (await handler)(request);
  },
};
`;

export const WRANGLER = `name = "__NAME__"
# build.js bundles src/worker.ts with esbuild; wrangler uploads the bundle as it is.
main = "dist/worker.js"
no_bundle = true
compatibility_date = "2026-11-01"
compatibility_flags = ["nodejs_compat"]

[build]
command = "node build.js"

[vars]
# The host names clients use, comma-separated, e.g. "__NAME__.<account>.workers.dev".
ALLOWED_HOSTS = ""
`;

export const WORKER_TEST = `import assert from 'node:assert/strict';
import { test } from 'node:test';
import worker from '../dist/worker.js';
import { callAdd } from './call-add.js';

// The bundle wrangler deploys, its fetch called as the Workers runtime calls it.
test('the bundled worker answers tools/call add', async () => {
  const answer = await callAdd((request) => worker.fetch(request, {}), 2, 3);
  assert.deepEqual(answer.result.structuredContent, { sum: 5 });
});
`;

export const LAMBDA = `import { McpApplication } from 'mcpkit';
import { type LambdaHandler, type LambdaHttpEvent, lambdaHandler } from 'mcpkit/fetch';
import { AppModule } from './app.module';

let lambda: Promise<LambdaHandler> | undefined;

/** The function's handler (function URL or API Gateway HTTP API, payload format 2.0). No sessions: each invocation stands alone. */
export async function handler(event: LambdaHttpEvent) {
  lambda ??= McpApplication.create(AppModule).then((app) =>
    lambdaHandler(app, {
      sessions: false,
      allowedHosts: ['localhost', '127.0.0.1', ...(process.env.ALLOWED_HOSTS ?? '').split(',').filter(Boolean)],
    }),
  );
  return (await lambda)(event);
}
`;

export const SAM = `AWSTemplateFormatVersion: '2010-09-09'
Transform: AWS::Serverless-2016-10-31
Description: __NAME__, an MCP server (npm run build first; dist/ holds the bundle)
Resources:
  McpFunction:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: dist/
      Handler: index.handler
      Runtime: nodejs24.x
      MemorySize: 512
      Timeout: 30
      Environment:
        Variables:
          # The function URL's host name, once known (comma-separated for several).
          ALLOWED_HOSTS: ''
      FunctionUrlConfig:
        AuthType: AWS_IAM
Outputs:
  McpUrl:
    Value: !GetAtt McpFunctionUrl.FunctionUrl
`;

export const LAMBDA_TEST = `import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { callAdd } from './call-add.js';

const { handler } = createRequire(import.meta.url)('../dist/index.cjs');

/** A function URL event (payload format 2.0) from a Request, and the Response from the handler's result. */
async function invoke(request) {
  const url = new URL(request.url);
  const event = {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers: Object.fromEntries(request.headers),
    requestContext: { http: { method: request.method, path: url.pathname, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'node' } },
    body: await request.text(),
    isBase64Encoded: false,
  };
  const result = await handler(event);
  const body = result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body;
  return new Response(body, { status: result.statusCode, headers: result.headers });
}

test('the bundled handler answers tools/call add from a function URL event', async () => {
  const answer = await callAdd(invoke, 2, 3);
  assert.deepEqual(answer.result.structuredContent, { sum: 5 });
});
`;

export const README: Record<PortableTarget, string> = {
  bun: `# __NAME__

An MCP server built with [mcpkit](https://www.npmjs.com/package/mcpkit), served by Bun.

\`\`\`bash
bun install && bun test    # the test calls the add tool through the fetch handler
bun run start              # serve on http://127.0.0.1:3000/mcp (PORT, HOST and ALLOWED_HOSTS to change)
\`\`\`

__INSTALL__

Tools, resources and prompts live in \`src/app.module.ts\`; Bun emits no decorator metadata, so each handler
names its input class (\`input: AddInput\`) and each constructor parameter its token (\`@inject(Adder)\`).
Served on another address than loopback (\`HOST=0.0.0.0\`), set \`ALLOWED_HOSTS\` to the host names clients use:
any other Host gets 403.
`,
  deno: `# __NAME__

An MCP server built with [mcpkit](https://www.npmjs.com/package/mcpkit), served by Deno.

\`\`\`bash
npm install && deno task test    # the test calls the add tool through the fetch handler
deno task start                  # serve on http://127.0.0.1:3000/mcp (PORT, HOST and ALLOWED_HOSTS to change)
\`\`\`

__INSTALL__

npm fills \`node_modules\`, which Deno reads (\`"nodeModulesDir": "manual"\` in deno.json). \`deno install\` does it too
when every package comes from the registry, but it links a \`file:\` tarball as it is instead of unpacking it.

Tools, resources and prompts live in \`src/app.module.ts\`; Deno emits no decorator metadata, so each handler
names its input class (\`input: AddInput\`) and each constructor parameter its token (\`@inject(Adder)\`).
Served on another address than loopback (\`HOST=0.0.0.0\`), set \`ALLOWED_HOSTS\` to the host names clients use:
any other Host gets 403.
`,
  workers: `# __NAME__

An MCP server built with [mcpkit](https://www.npmjs.com/package/mcpkit), as a Cloudflare Worker.

\`\`\`bash
npm install && npm test    # bundle with esbuild (build.js), then call the bundle's fetch
npx wrangler dev           # serve locally in workerd
npx wrangler deploy        # deploy; set ALLOWED_HOSTS in wrangler.toml to the worker's host name first
\`\`\`

__INSTALL__

\`src/worker.ts\` makes the application on the first request and keeps no sessions. esbuild emits no decorator
metadata, so each handler in \`src/app.module.ts\` names its input class and each constructor parameter its token.
wrangler is pinned: \`compatibility_date\` in wrangler.toml must not be newer than the workerd it ships; move both together.
`,
  lambda: `# __NAME__

An MCP server built with [mcpkit](https://www.npmjs.com/package/mcpkit), as an AWS Lambda function.

\`\`\`bash
npm install && npm test    # bundle with esbuild into dist/index.cjs, then invoke it with a function URL event
npm run deploy             # sam deploy --guided (template.yaml: nodejs24.x, a function URL, IAM auth)
\`\`\`

__INSTALL__

Once deployed, set ALLOWED_HOSTS in template.yaml to the function URL's host name. Answers are buffered (Lambda
returns once) and there are no sessions. esbuild emits no decorator metadata, so each handler in
\`src/app.module.ts\` names its input class and each constructor parameter its token.
`,
};
