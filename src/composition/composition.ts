import { InvalidDefinitionError } from '../errors/invalid-definition.error';
import type { Implementation } from '../mcp/mcp-types';
import type { Call } from '../protocol/pipeline/call';
import type { Contribution } from '../registry/contribution';
import type { Registry } from '../registry/registry';
import type { ProxyOptions } from './proxy';
import { checkPrefix, mountedContribution, prefixedUri } from './mount';
import { ProxyLink, type ProxyTransport } from './proxy-link';

/** Where a composition puts what it serves: the application's registry, one contribution per source. */
export interface Contributions {
  /** Sets (or, with undefined, drops) the descriptors of `source`; throws a definition error on a collision. */
  contribute(source: string, contribution: Contribution | undefined): void;
  contributes(source: string): boolean;
}

/** What composition needs of the application it belongs to. */
export interface CompositionHost {
  readonly contributions: Contributions;
  /** Tells who follows the application's resource `uri` that it changed (its sessions, listen streams, an application it is mounted in). */
  notifyResourceUpdated(uri: string): Promise<void>;
  logError(message: string, error: unknown): void;
  /** A proxy's request timeout and client info when its options name none. */
  readonly proxyDefaults: { timeoutMs: number; clientInfo: Implementation };
}

/** An application as a mount serves it. */
export interface Mountable {
  readonly registry: Registry;
  /** Runs a call of a handler of that application in it (its middleware, its container): what a mount forwards to. */
  readonly runOwn: (call: Call) => Promise<unknown>;
  /** Told of that application's resource updates: a mount forwards them under its prefix. */
  readonly resourceUpdates: Set<(uri: string) => void>;
  close(): Promise<void>;
}

/**
 * An application composed of others: modules and applications mounted under a prefix, remote MCP
 * servers proxied under one. Each is a contribution to the registry, checked like any definition.
 */
export class Composition {
  /** What is served under each prefix (mounts and proxies), and how to let it go. */
  private readonly mounts = new Map<string, { release(): Promise<void> }>();

  constructor(private readonly host: CompositionHost) {}

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
    const contributions = this.host.contributions;
    const withdraw = () => (contributions.contributes(source) ? contributions.contribute(source, undefined) : undefined);
    const link = new ProxyLink(
      prefix,
      transport,
      {
        contribute: (c) => contributions.contribute(source, c),
        withdraw,
        notifyResourceUpdated: (uri) => this.host.notifyResourceUpdated(uri),
        logError: (m, e) => this.host.logError(m, e),
      },
      {
        ...options,
        timeoutMs: options.timeoutMs ?? this.host.proxyDefaults.timeoutMs,
        clientInfo: options.clientInfo ?? this.host.proxyDefaults.clientInfo,
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
    this.host.contributions.contribute(`mount:${prefix}`, undefined);
    await mounted.release();
    return true;
  }

  private logError(message: string, error: unknown): void {
    this.host.logError(message, error);
  }

  private claimPrefix(prefix: string, what: string): void {
    checkPrefix(prefix, what);
    if (this.mounts.has(prefix)) throw new InvalidDefinitionError(`${what} "${prefix}"`, 'the prefix is already mounted');
  }

  /** Serves `app`'s primitives under `prefix`, following its runtime changes; refuses collisions. */
  mount(prefix: string, app: Mountable, owned: boolean): void {
    this.claimPrefix(prefix, 'mount');
    const contributions = this.host.contributions;
    const refresh = () => contributions.contribute(`mount:${prefix}`, mountedContribution(prefix, app.registry, app.runOwn));
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
        contributions.contribute(`mount:${prefix}`, undefined);
        this.logError(
          `A change of the application mounted at "${prefix}" collides with this one; its primitives are withdrawn until that is resolved`,
          error,
        );
      }
    });
    const forward = (uri: string) =>
      void this.host
        .notifyResourceUpdated(prefixedUri(prefix, uri))
        .catch((e) => this.logError(`Could not forward a resource update of the application mounted at "${prefix}"`, e));
    const updates = app.resourceUpdates;
    updates.add(forward);
    this.mounts.set(prefix, { release: async () => (stop(), updates.delete(forward), owned ? app.close() : undefined) });
  }

  /** Lets every mount and proxy go (on the application's close): built applications closed, proxies disconnected. */
  async close(): Promise<void> {
    const all = [...this.mounts.values()];
    this.mounts.clear();
    const released = await Promise.allSettled(all.map((m) => m.release()));
    for (const r of released) if (r.status === 'rejected') this.logError('Could not let a mount or proxy go', r.reason);
  }
}
