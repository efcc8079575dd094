import { Composition } from '../composition/composition';
import type { ProxyOptions } from '../composition/proxy';
import type { ProxyTransport } from '../composition/proxy-link';
import { InvalidDefinitionError } from '../errors/invalid-definition.error';
import { internalsOf } from '../kernel/app-internals';
import { McpApplication } from '../kernel/mcp-application';
import type { ClassType } from '../metadata/records';

/** Each application's mounts and proxies, made by the first. */
const compositions = new WeakMap<McpApplication, Composition>();

function compositionOf(app: McpApplication): Composition {
  let composition = compositions.get(app);
  if (composition) return composition;
  const parts = internalsOf(app);
  const { options, logger, hooks } = parts;
  composition = new Composition({
    contributions: parts.definitions,
    notifyResourceUpdated: (uri) => app.notifyResourceUpdated(uri),
    logError: (m, e) => logger.error(m, e),
    proxyDefaults: {
      timeoutMs: options.clientRequestTimeoutMs,
      clientInfo: { name: options.server.name, version: options.server.version },
    },
  });
  compositions.set(app, composition);
  const made = composition;
  hooks.closing.add(() => made.close());
  return composition;
}

/**
 * Serves another module's (or application's) tools, resources and prompts in `app` under `prefix`:
 * names become `prefix_name`, URIs `scheme://prefix/rest`. A module is built into an application of its
 * own (its container, its options), closed with `app`; a call of its handlers passes `app`'s pipeline,
 * then the mounted application's middleware. A collision rejects with a named definition error.
 * Resolves with the mounted application.
 */
export async function mount(app: McpApplication, prefix: string, target: ClassType | McpApplication): Promise<McpApplication> {
  if (target === app) throw new InvalidDefinitionError(`mount "${prefix}"`, 'an application cannot mount itself');
  const mounted = target instanceof McpApplication ? target : await McpApplication.create(target);
  const parts = internalsOf(mounted);
  compositionOf(app).mount(
    prefix,
    {
      registry: parts.registry,
      runOwn: (call) => parts.engine.pipelines.runOwn(call),
      resourceUpdates: parts.hooks.resourceUpdates,
      close: () => mounted.close(),
    },
    mounted !== target,
  );
  return mounted;
}

/**
 * Serves a remote MCP server's tools, resources, templates and prompts in `app` under `prefix`, through
 * an MCP client on `transport` (`stdioClientTransport`, `streamableHttpClientTransport`, or any transport
 * shaped like the official SDK's). Calls are forwarded with their cancellation and progress; the remote
 * server's elicitation, sampling and roots requests reach the caller's client; its list changes are
 * followed. Rejects when the remote server cannot be reached or a name collides.
 */
export function proxy(app: McpApplication, prefix: string, transport: ProxyTransport, options: ProxyOptions = {}): Promise<void> {
  return compositionOf(app).proxy(prefix, transport, options);
}

/** Stops serving what was mounted or proxied in `app` under `prefix` (an application built by `mount` is closed, a proxy disconnected). */
export function unmount(app: McpApplication, prefix: string): Promise<boolean> {
  return compositions.get(app)?.unmount(prefix) ?? Promise.resolve(false);
}
