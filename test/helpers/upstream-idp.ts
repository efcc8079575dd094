import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ROOT } from './paths';

/** The oidc-provider fixture as a child process (it is ESM-only, so it does not run inside jest). */
export async function startUpstreamIdp(env: {
  CLIENT_ID: string;
  CLIENT_SECRET: string;
  REDIRECT_URI: string;
}): Promise<{ url: string; stop: () => Promise<void>; output: () => string }> {
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, 'test', 'fixtures', 'upstream-idp.mjs')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the upstream IdP did not start: ${output}`));
    }, 15_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { url: string }).url);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the upstream IdP exited with ${code}: ${output}`));
    });
  });
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  return { url, stop, output: () => output };
}

/** Where an OAuth proxy test serves: a loopback server, its origin, and the upstream IdP registered for its callback. */
export interface ProxySite {
  readonly origin: string;
  /** `<origin>/mcp`. */
  readonly resource: string;
  /** The proxy's `upstream` option for the IdP (add `scopes` as the test needs). */
  readonly upstream: { issuer: string; clientId: string; clientSecret: string };
  /** Serves the site's requests with `listener` from now on. */
  serve(listener: (req: IncomingMessage, res: ServerResponse) => unknown): void;
  stop(): Promise<void>;
}

/**
 * A loopback server whose origin is known before the OAuth proxy that will serve it is built (the upstream
 * IdP must know the proxy's callback), and the oidc-provider fixture with one static client for that callback.
 */
export async function startProxySite(): Promise<ProxySite> {
  let handler: (req: IncomingMessage, res: ServerResponse) => unknown = (_q, res) => res.end();
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const idp = await startUpstreamIdp({ CLIENT_ID: 'mcp-proxy', CLIENT_SECRET: 'upstream-secret', REDIRECT_URI: `${origin}/callback` });
  return {
    origin,
    resource: `${origin}/mcp`,
    upstream: { issuer: idp.url, clientId: 'mcp-proxy', clientSecret: 'upstream-secret' },
    serve: (listener) => {
      handler = listener;
    },
    stop: async () => {
      server.close();
      await idp.stop();
    },
  };
}
