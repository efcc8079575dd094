import { IsIn, IsInt, IsOptional, IsString } from 'class-validator';
import { ToolError, type McpContext } from 'mcpkit';

export class Ticket {
  @IsInt() id!: number;
  @IsString() title!: string;
  @IsString() body!: string;
  @IsIn(['open', 'closed']) status!: 'open' | 'closed';
  @IsString() openedBy!: string;
  @IsOptional() @IsString() closedBy?: string;
}

/**
 * The REST API's client. The MCP server calls it with its own API key: the caller's OAuth token was
 * issued for the MCP server and is never passed on (the MCP spec forbids token passthrough). Who acts
 * travels as data, `X-Acting-User`, from the verified token (`ctx.auth`).
 */
export class TicketsApi {
  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
    private readonly timeoutMs = 10_000,
  ) {}

  list(ctx: McpContext, status?: 'open' | 'closed'): Promise<Ticket[]> {
    return this.request(ctx, 'GET', `/tickets${status ? `?status=${status}` : ''}`);
  }

  get(ctx: McpContext, id: number): Promise<Ticket> {
    return this.request(ctx, 'GET', `/tickets/${id}`);
  }

  create(ctx: McpContext, title: string, body: string): Promise<Ticket> {
    return this.request(ctx, 'POST', '/tickets', { title, body });
  }

  close(ctx: McpContext, id: number): Promise<Ticket> {
    return this.request(ctx, 'POST', `/tickets/${id}/close`);
  }

  private async request<T>(ctx: McpContext, method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(new URL(path, this.baseUrl), {
      method,
      headers: {
        'x-api-key': this.apiKey,
        'x-acting-user': ctx.auth?.subject ?? ctx.auth?.clientId ?? 'unknown',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      // A cancelled call (notifications/cancelled) stops the HTTP request too.
      signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(this.timeoutMs)]),
    });
    const answer = (await res.json().catch(() => ({}))) as { error?: string };
    // 4xx about the request is something the model can fix: say what the API said. Anything else stays in the log.
    if (res.status >= 400 && res.status < 500 && res.status !== 401) throw new ToolError(answer.error ?? `HTTP ${res.status}`);
    if (!res.ok) throw new Error(`tickets API answered ${method} ${path} with HTTP ${res.status}`);
    return answer as T;
  }
}
