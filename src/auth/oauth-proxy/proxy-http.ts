import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from '../../http/body';
import { OAuthError } from './oauth.error';

const MAX_BODY = 64 * 1024;

/** A request's parameters: the query for GET, the form (or JSON, for /register) body for POST. */
export async function readParams(req: IncomingMessage, url: URL): Promise<Record<string, unknown>> {
  if (req.method !== 'POST') return Object.fromEntries(url.searchParams);
  let body: Buffer;
  try {
    body = await readBody(req, MAX_BODY);
  } catch {
    throw new OAuthError('invalid_request', 'The request body is too large');
  }
  const type = String(req.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
  if (type === 'application/json') {
    try {
      const parsed: unknown = JSON.parse(body.toString('utf8'));
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    } catch {
      // answered below
    }
    throw new OAuthError('invalid_request', 'The body is not a JSON object');
  }
  if (type === 'application/x-www-form-urlencoded') {
    const form = new URLSearchParams(body.toString('utf8'));
    for (const key of new Set(form.keys())) {
      if (form.getAll(key).length > 1) throw new OAuthError('invalid_request', `Parameter ${key} is repeated`);
    }
    return Object.fromEntries(form);
  }
  throw new OAuthError('invalid_request', 'Expected an application/x-www-form-urlencoded body');
}

/** A string parameter, or undefined; anything else is refused. */
export function param(params: Record<string, unknown>, name: string, required = false): string | undefined {
  const value = params[name];
  if (value === undefined || value === '') {
    if (required) throw new OAuthError('invalid_request', `Missing parameter ${name}`);
    return undefined;
  }
  if (typeof value !== 'string') throw new OAuthError('invalid_request', `Parameter ${name} must be a string`);
  return value;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, cors = true): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Cache-Control', 'no-store');
  if (cors) res.setHeader('Access-Control-Allow-Origin', '*');
  res.end(JSON.stringify(body));
}

export function sendError(res: ServerResponse, error: OAuthError): void {
  if (error.status === 401) res.setHeader('WWW-Authenticate', 'Basic realm="oauth"');
  if (error.status === 503) res.setHeader('Retry-After', '5');
  sendJson(res, error.status, { error: error.error, error_description: error.description });
}

export function redirect(res: ServerResponse, location: string): void {
  res.statusCode = 302;
  res.setHeader('Location', location);
  res.setHeader('Cache-Control', 'no-store');
  res.end();
}

export function sendHtml(res: ServerResponse, html: string, headers: Record<string, string> = {}): void {
  res.statusCode = 200;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.end(html);
}

/** A URL with `params` appended to its query. */
export function withQuery(base: string, params: Record<string, string | undefined>): string {
  const url = new URL(base);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value);
  return url.toString();
}

export function cookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of String(req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}
