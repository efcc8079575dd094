import type { McpClientTransport } from '../client/client-transport';
import { stdioClientTransport } from '../client/stdio-client.transport';
import { sseClientTransport } from '../client/sse-client.transport';
import { streamableHttpClientTransport } from '../client/streamable-http-client.transport';
import { McpApplication } from '../kernel/mcp-application';
import { McpModule } from '../kernel/mcp-module.decorator';
import { mount, proxy } from '../serving/compose';
import { httpServer } from '../serving/http.door';
import { stdio } from '../serving/stdio.door';
import { cliPackage } from './cli-package';
import { CliError, firstLine } from './cli-error';
import type { Command } from './command';
import { parseProxyArgs, type Upstream } from './proxy-args';

/** An application with nothing of its own: what it serves comes from the proxied servers. */
@McpModule({ providers: [] })
class ProxyModule {}

type Described = { serverInfo?: { name: string; version: string }; instructions?: string };

export const proxyCommand: Command = {
  name: 'proxy',
  summary: 'serve MCP servers (stdio, HTTP or HTTP+SSE) through one mcpkit server, e.g. a stdio server over Streamable HTTP',
  help: `Usage: mcpkit proxy [--http <port> | --stdio] [options] -- <command> [args...]
       mcpkit proxy [--http <port> | --stdio] [options] --upstream <prefix>=<target> ...

Serves other MCP servers through one mcpkit server: a stdio-only server over Streamable HTTP (both the
2025-11-25 and 2026-07-28 eras, whatever the server speaks), or several servers behind one endpoint,
each under its prefix (tool "read" of upstream "files" is served as "files_read", resource
"file:///a" as "file:///files/a"). A single server keeps its names unless --prefix is given.

  mcpkit proxy --http 3000 -- npx -y @modelcontextprotocol/server-filesystem /srv
  mcpkit proxy --stdio --upstream https://crm.internal/mcp --header 'Authorization: Bearer x'
  mcpkit proxy --upstream files=stdio:"npx -y @modelcontextprotocol/server-filesystem /srv" \\
               --upstream crm=https://crm.internal/mcp --upstream old=sse:https://legacy.internal/sse

  --http <port>        serve Streamable HTTP on this port (default: PORT, else 3000; 0 picks a free one)
  --host <host>        the HTTP address to bind (default 127.0.0.1)
  --stdio              serve over stdio instead (stdout carries protocol messages only)
  --upstream <spec>    a server to proxy: [<prefix>=]stdio:<command line>, [<prefix>=]http(s)://…/mcp
                       (Streamable HTTP) or [<prefix>=]sse:http(s)://…/sse (HTTP+SSE, 2024-11-05 servers)
                       (repeatable; a prefix is required with several servers)
  --prefix <name>      the prefix of a single server (default: none, names unchanged)
  --header 'K: V'      a header sent to HTTP upstreams, e.g. 'Authorization: Bearer x' (repeatable)
  --era <era>          what to speak to the upstreams: auto (2026-07-28, else initialize), handshake, per-request
  --name, --version    the serverInfo served (default: the upstream's with a single server, else mcpkit-proxy)

A stdio server's stderr goes to this process's stderr. An upstream that cannot be started or reached
stops the proxy with exit code 1. SIGINT/SIGTERM (or, with --stdio, the end of stdin) stop the proxy
and the stdio servers it started.`,

  async run(args) {
    const options = parseProxyArgs(args);
    const log = (line: string) => void process.stderr.write(`mcpkit proxy: ${line}\n`);
    const single = options.upstreams.length === 1 && options.name === undefined;
    const described: Described = {};
    // Every list is offered from the start: while an upstream is away (and reconnected), its lists are empty, not gone.
    const offer = { tools: true, resources: true, prompts: true };
    const inner = await McpApplication.create(ProxyModule, {
      server: { name: options.name ?? 'mcpkit-proxy', version: options.version ?? cliPackage().version },
      offer,
    });
    const apps = [inner];
    const closeAll = async () => {
      for (const app of [...apps].reverse()) await app.close().catch((e: unknown) => log(`could not close cleanly: ${firstLine(e)}`));
    };
    try {
      for (const upstream of options.upstreams) {
        // A function, so that an upstream that goes away later (a stdio server exiting) is connected again.
        let first = true;
        const transport = () => {
          const made = transportOf(upstream, options.headers);
          if (!first || !single) return made;
          first = false;
          return describing(made, described);
        };
        try {
          await proxy(inner, upstream.prefix, transport, { era: options.era });
        } catch (error) {
          throw new CliError(`could not proxy ${shown(upstream)}: ${firstLine(error)}`);
        }
      }
      // The served serverInfo is fixed when an application is built: to serve the single upstream's, an
      // outer application that has it serves the inner one's surface (mounted under no prefix).
      if (single && described.serverInfo) {
        const { name, version } = described.serverInfo;
        const outer = await McpApplication.create(ProxyModule, {
          server: { name, version: options.version ?? version, instructions: described.instructions },
          offer,
        });
        apps.push(outer);
        await mount(outer, '', inner);
      }
      const served = apps[apps.length - 1];
      if (options.front.stdio) {
        await served.listen(stdio());
        log(`serving ${options.upstreams.map(shown).join(', ')} over stdio`);
      } else {
        const { url } = await served.listen(httpServer({ port: options.front.port, host: options.front.host }));
        log(`serving MCP at ${url} (${options.upstreams.map(shown).join(', ')})`);
      }
    } catch (error) {
      await closeAll();
      throw error;
    }
    return new Promise<number>((done) => {
      let stopping = false;
      const stop = () => {
        if (stopping) return;
        stopping = true;
        void closeAll().then(() => done(0));
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      if (options.front.stdio) process.stdin.once('end', stop);
    });
  },
};

function transportOf(upstream: Upstream, headers: Record<string, string>): McpClientTransport {
  if (upstream.kind === 'http') return streamableHttpClientTransport(upstream.url, { headers });
  if (upstream.kind === 'sse') return sseClientTransport(upstream.url, { headers });
  return stdioClientTransport({ command: upstream.command, args: upstream.args, stderr: 'inherit' });
}

function shown(upstream: Upstream): string {
  const target =
    upstream.kind === 'http'
      ? upstream.url
      : upstream.kind === 'sse'
        ? `sse:${upstream.url}`
        : [upstream.command, ...upstream.args].join(' ');
  return upstream.prefix ? `"${upstream.prefix}" (${target})` : target;
}

/** The transport, noting the serverInfo and instructions of the server's answer to initialize or server/discover. */
function describing(transport: McpClientTransport, into: Described): McpClientTransport {
  const wrapper: McpClientTransport = {
    start: () => {
      transport.onmessage = (message, extra) => {
        const result = message.result as (Described & { _meta?: Record<string, unknown> }) | undefined;
        const info = result?.serverInfo ?? (result?._meta?.['io.modelcontextprotocol/serverInfo'] as Described['serverInfo']);
        if (!into.serverInfo && info && typeof info.name === 'string') {
          into.serverInfo = { name: info.name, version: typeof info.version === 'string' ? info.version : '0.0.0' };
          if (typeof result?.instructions === 'string') into.instructions = result.instructions;
        }
        wrapper.onmessage?.(message, extra);
      };
      transport.onclose = () => wrapper.onclose?.();
      transport.onerror = (error) => wrapper.onerror?.(error);
      return transport.start();
    },
    send: (message, options) => transport.send(message, options),
    close: () => transport.close(),
    setProtocolVersion: (version) => transport.setProtocolVersion?.(version),
    get sessionId() {
      return transport.sessionId;
    },
  };
  return wrapper;
}
