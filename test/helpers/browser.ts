/**
 * A user agent for OAuth flows without a browser: follows redirects by hand, keeps cookies per host
 * (all paths; enough for the proxy and oidc-provider) and stops at a page or at the client's redirect URI.
 */
export class Browser {
  private readonly jar = new Map<string, Map<string, string>>();

  constructor(private readonly stopAt: string) {}

  /** Follows redirects from `url`; resolves with the final page, or with the redirect to `stopAt`. */
  async go(
    url: string,
    init: { method?: string; form?: Record<string, string> } = {},
  ): Promise<{ url: string; status: number; body: string }> {
    let next = url;
    let method = init.method ?? 'GET';
    let body: URLSearchParams | undefined = init.form ? new URLSearchParams(init.form) : undefined;
    for (let hop = 0; hop < 20; hop++) {
      if (next.startsWith(this.stopAt)) return { url: next, status: 302, body: '' };
      const target = new URL(next);
      const headers: Record<string, string> = { Cookie: this.cookieHeader(target.host) };
      if (body) headers['Content-Type'] = 'application/x-www-form-urlencoded';
      const response = await fetch(next, { method, headers, body, redirect: 'manual' });
      this.remember(target.host, response.headers.getSetCookie());
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        next = new URL(location, next).toString();
        method = 'GET';
        body = undefined;
        continue;
      }
      return { url: next, status: response.status, body: await response.text() };
    }
    throw new Error('too many redirects');
  }

  /** Submits the consent form of `page` with the given decision. */
  consent(page: { url: string; body: string }, decision: 'approve' | 'deny', tamper: { csrf?: string; dropCookies?: boolean } = {}) {
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page.body)?.[1] ?? '';
    const action = /<form method="post" action="([^"]+)"/.exec(page.body)?.[1] ?? '';
    if (tamper.dropCookies) this.jar.clear();
    return this.go(new URL(action, page.url).toString(), {
      method: 'POST',
      form: { request: field('request'), csrf: tamper.csrf ?? field('csrf'), decision },
    });
  }

  private cookieHeader(host: string): string {
    return [...(this.jar.get(host) ?? new Map<string, string>())].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private remember(host: string, cookies: string[]): void {
    const jar = this.jar.get(host) ?? new Map<string, string>();
    this.jar.set(host, jar);
    for (const line of cookies) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=thu, 01 jan 1970/i.test(a));
      if (expired) jar.delete(name);
      else jar.set(name, pair.slice(eq + 1).trim());
    }
  }
}
