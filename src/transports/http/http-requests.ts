import type Koa from 'koa';
import type { AuthInfo } from '../../context/mcp-context';
import { McpError } from '../../mcp/mcp.error';
import type { EventStore } from './event-store';
import type { HttpOptions } from './http-options';
import { HttpSession, STANDALONE_STREAM } from './http-session';
import type { SessionCluster } from './session-cluster';
import type { SessionDirectory } from './session-directory';
import { fail } from './koa-replies';

type Ctx = Koa.ParameterizedContext;

/** Runs the `authenticate` option; answers 401 (and resolves undefined) when it refuses. */
export async function authenticate(ctx: Ctx, check: HttpOptions['authenticate']): Promise<{ auth: AuthInfo | undefined } | undefined> {
  try {
    return { auth: await check?.({ headers: ctx.req.headers, method: ctx.method, url: ctx.url }) };
  } catch {
    fail(ctx, 401, -32000, 'Unauthorized');
    return undefined;
  }
}

/** The session named by the request, or undefined after answering 400 (no id), 404 (unknown) or 503 (store down). */
export async function findSession(ctx: Ctx, sessions: SessionDirectory, auth: AuthInfo | undefined): Promise<HttpSession | undefined> {
  const id = ctx.get('mcp-session-id');
  if (!id) {
    fail(ctx, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    return undefined;
  }
  try {
    const http = await sessions.find(id, auth?.subject);
    if (!http) fail(ctx, 404, -32001, 'Session not found');
    return http;
  } catch (error) {
    if (!(error instanceof McpError)) throw error;
    fail(ctx, 503, error.code, error.message);
    return undefined;
  }
}

/** A GET with `Last-Event-ID`: replays the stream after that event, then follows it wherever it lives. */
export async function resumeStream(ctx: Ctx, http: HttpSession, lastEventId: string, store: EventStore, cluster: SessionCluster | undefined): Promise<void> {
  const found = await store.eventsAfter(http.id!, lastEventId);
  if (!found) return fail(ctx, 400, -32000, 'Bad Request: unknown Last-Event-ID for this session');
  const channel = found.streamId === STANDALONE_STREAM ? http.standalone : http.streams.get(found.streamId);
  ctx.respond = false;
  if (channel) {
    await channel.resume(ctx.res, async () => (await store.eventsAfter(http.id!, lastEventId))?.events ?? []);
    return;
  }
  // The stream lives on another instance: replay, then follow it there until it ends.
  if (cluster) return cluster.follow(http, found.streamId, lastEventId, ctx.res, store);
  // The request stream already finished: replay what it sent after that event, then end.
  const ended = http.finishedStream(found.streamId);
  await ended.resume(ctx.res, async () => found.events);
}
