import { echo } from '../../protocol/wire';
/**
 * DNS-rebinding protection: a browser tricked into calling a local server sends a foreign Host and
 * Origin. Allowed hosts are matched by name, and by port when the entry (or the server) names one.
 * Without an origin allow-list, an origin is accepted when its host name is an allowed host, on any
 * port: a page served by another local tool (the MCP Inspector) is not a rebinding attack, whose
 * Origin keeps the attacker's name.
 */
export class HostGuard {
  private readonly hosts: Set<string>;
  /** The allowed hosts without their ports, for origins. */
  private readonly hostNames: Set<string>;
  private readonly origins: Set<string> | undefined;
  /** The last Host header checked, and whether it passed: a client sends the same one with every request. */
  private lastHost?: { host: string; allowed: boolean };

  constructor(
    allowedHosts: string[],
    allowedOrigins: string[] | undefined,
    private port: number | undefined,
  ) {
    this.hosts = new Set(allowedHosts.map((h) => h.toLowerCase()));
    this.hostNames = new Set([...this.hosts].map((h) => splitHost(h).name));
    this.origins = allowedOrigins ? new Set(allowedOrigins.map((o) => o.toLowerCase().replace(/\/$/, ''))) : undefined;
  }

  /** The port the server actually listens on (known after listen). */
  setPort(port: number): void {
    this.port = port;
    this.lastHost = undefined;
  }

  /** Why the request is refused, or undefined when it may proceed. */
  check(host: string | undefined, origin: string | undefined): string | undefined {
    if (!host || !this.hostPasses(host)) return `Host header not allowed: ${host === undefined ? '(none)' : echo(host)}`;
    if (origin !== undefined && !this.originAllowed(origin.toLowerCase())) return `Origin not allowed: ${echo(origin)}`;
    return undefined;
  }

  private hostPasses(host: string): boolean {
    const last = this.lastHost;
    if (last?.host === host) return last.allowed;
    const allowed = this.hostAllowed(host.toLowerCase());
    this.lastHost = { host, allowed };
    return allowed;
  }

  private hostAllowed(host: string): boolean {
    if (this.hosts.has(host)) return true;
    const { name, port } = splitHost(host);
    if (!this.hosts.has(name)) return false;
    return port === undefined || this.port === undefined || port === this.port;
  }

  private originAllowed(origin: string): boolean {
    if (this.origins) return this.origins.has(origin);
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    return this.hostNames.has(url.hostname);
  }
}

function splitHost(host: string): { name: string; port?: number } {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(host);
  if (!m) return { name: host };
  return m[2] === undefined ? { name: m[1] } : { name: m[1], port: Number(m[2]) };
}
