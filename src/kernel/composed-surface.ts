import { InvalidDefinitionError } from '../errors/invalid-definition.error';
import type { Invoke } from '../protocol/tool-invoker';
import type { ResolvedOptions } from './application-options';
import { ApplicationSurface } from './application-surface';
import { checkPrefix, mountedContribution, prefixedUri } from './mount';
import type { ProxyOptions } from './proxy';
import { ProxyLink, type ProxyTransport } from './proxy-link';
import type { ServerLogger } from './server-logger';

/**
 * An application composed of others: modules and applications mounted under a prefix, remote MCP
 * servers proxied under one. Each is a contribution to the registry, checked like any definition.
 */
export abstract class ComposedSurface extends ApplicationSurface {
  /** Runs a handler of this application (its container, its middleware): what a mount forwards to. */
  protected abstract readonly invoke: Invoke;
  abstract readonly options: ResolvedOptions;
  protected abstract readonly logger: ServerLogger;
  /** What is served under each prefix (mounts and proxies), and how to let it go. */
  private readonly mounts = new Map<string, { release(): Promise<void> }>();
  /** Applications this one is mounted in, told of its resource updates. */
  private readonly updateListeners = new Set<(uri: string) => void>();

  abstract close(): Promise<void>;
  /** Tells this application's own subscribers (sessions, listen streams) that `uri` changed. */
  protected abstract notifySubscribers(uri: string): Promise<void>;

  /**
   * Serves a remote MCP server's tools, resources, templates and prompts under `prefix`, through an
   * MCP client on `transport` (`stdioClientTransport`, `streamableHttpClientTransport`, or any
   * transport shaped like the official SDK's). Calls are forwarded with their cancellation and
   * progress; the remote server's elicitation, sampling and roots requests reach the caller's client;
   * its list changes are followed. Rejects when the remote server cannot be reached or a name collides.
   */
  async proxy(prefix: string, transport: ProxyTransport, options: ProxyOptions = {}): Promise<void> {
    this.claimPrefix(prefix, 'proxy');
    const source = `mount:${prefix}`;
    const placeholder = { release: async () => undefined };
    this.mounts.set(prefix, placeholder);
    const withdraw = () => (this.contributions.has(source) ? this.contribute(source, undefined) : undefined);
    const link = new ProxyLink(
      prefix,
      transport,
      {
        contribute: (c) => this.contribute(source, c),
        withdraw,
        notifyResourceUpdated: (uri) => this.notifyResourceUpdated(uri),
        logError: (m, e) => this.logError(m, e),
      },
      {
        ...options,
        timeoutMs: options.timeoutMs ?? this.options.clientRequestTimeoutMs,
        clientInfo: options.clientInfo ?? { name: this.options.server.name, version: this.options.server.version },
      },
    );
    try {
      await link.start();
      if (this.mounts.get(prefix) !== placeholder) {
        // Unmounted, or the application closed, while it connected (the prefix may be another's by now).
        await link.close();
        if (!this.mounts.has(prefix)) withdraw();
        throw new Error(`The proxy at "${prefix}" was let go while it connected`);
      }
      this.mounts.set(prefix, { release: () => link.close() });
    } catch (error) {
      if (this.mounts.get(prefix) === placeholder) this.mounts.delete(prefix);
      if (!this.mounts.has(prefix)) withdraw();
      throw error;
    }
  }

  /** Stops serving what was mounted or proxied under `prefix` (an application built by `mount` is closed, a proxy disconnected). */
  async unmount(prefix: string): Promise<boolean> {
    const mounted = this.mounts.get(prefix);
    if (!mounted) return false;
    this.mounts.delete(prefix);
    this.contribute(`mount:${prefix}`, undefined);
    await mounted.release();
    return true;
  }

  /**
   * Sends `notifications/resources/updated` to the sessions subscribed to `uri` and the listen streams
   * naming it (on every instance), and to an application this one is mounted in (under its prefix).
   */
  async notifyResourceUpdated(uri: string): Promise<void> {
    for (const listener of this.updateListeners) listener(uri);
    await this.notifySubscribers(uri);
  }
  protected logError(message: string, error: unknown): void {
    this.logger.error(message, error);
  }

  private claimPrefix(prefix: string, what: string): void {
    checkPrefix(prefix, what);
    if (this.mounts.has(prefix)) throw new InvalidDefinitionError(`${what} "${prefix}"`, 'the prefix is already mounted');
  }

  /** Serves `app`'s primitives under `prefix`, following its runtime changes; refuses collisions. */
  protected mountApplication(prefix: string, app: ComposedSurface, owned: boolean): void {
    this.claimPrefix(prefix, 'mount');
    if (app === this) throw new InvalidDefinitionError(`mount "${prefix}"`, 'an application cannot mount itself');
    const refresh = () => this.contribute(`mount:${prefix}`, mountedContribution(prefix, app.registry, app.invoke));
    try {
      refresh();
    } catch (error) {
      if (owned) void app.close().catch((e) => this.logError('Could not close an application that failed to mount', e));
      throw error;
    }
    const stop = app.registry.onChange(() => {
      try {
        refresh();
      } catch (error) {
        // Fail closed: serving the last good copy would keep what the mounted application removed or hid.
        this.contribute(`mount:${prefix}`, undefined);
        this.logError(
          `A change of the application mounted at "${prefix}" collides with this one; its primitives are withdrawn until that is resolved`,
          error,
        );
      }
    });
    const forward = (uri: string) =>
      void this.notifyResourceUpdated(prefixedUri(prefix, uri)).catch((e) =>
        this.logError(`Could not forward a resource update of the application mounted at "${prefix}"`, e),
      );
    app.updateListeners.add(forward);
    this.mounts.set(prefix, { release: async () => (stop(), app.updateListeners.delete(forward), owned ? app.close() : undefined) });
  }

  /** Lets every mount and proxy go (on the application's close): built applications closed, proxies disconnected. */
  protected async closeMounts(): Promise<void> {
    const all = [...this.mounts.values()];
    this.mounts.clear();
    const released = await Promise.allSettled(all.map((m) => m.release()));
    for (const r of released) if (r.status === 'rejected') this.logError('Could not let a mount or proxy go', r.reason);
  }
}
