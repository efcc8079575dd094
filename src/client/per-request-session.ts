import { type Era, MetaKey, PerRequestErrorCode } from '../mcp/eras';
import type { RequestId } from '../mcp/json-rpc';
import { McpError } from '../mcp/mcp.error';
import type { RequestOptions } from './outbound-requests';

/** The revision a per-request client speaks. */
export const PER_REQUEST_VERSION = '2026-07-28';

/**
 * How a client picks its era: `handshake` initializes (2024-11-05 … 2025-11-25), `per-request` sends
 * server/discover (2026-07-28), `auto` tries discover and falls back to initialize.
 */
export type ClientEra = Era | 'auto';

/** What the server said about itself: initialize's result, or server/discover's in the same shape. */
export interface ServerDescription {
  protocolVersion: string;
  capabilities: Record<string, unknown>;
  serverInfo: { name: string; version: string; [key: string]: unknown };
  instructions?: string;
  /** server/discover's list (per-request era only). */
  supportedVersions?: string[];
  [key: string]: unknown;
}

/** Sends one JSON-RPC request as it is. */
export type RawSend = (method: string, params: Record<string, unknown>, options: RequestOptions) => Promise<Record<string, unknown>>;
/** Answers one input request with the client's handler of its method (elicitation/create, sampling/createMessage, roots/list). */
export type InputAnswer = (
  method: string,
  params: Record<string, unknown>,
  context: { requestId: RequestId; relatedRequestId: RequestId; signal: AbortSignal },
) => Promise<unknown>;

const RETRY_PAUSE_MS = 100;

/**
 * The 2026-07-28 era on the client side: stateless, so every request carries the `_meta` envelope
 * (protocol version, client info, client capabilities); server/discover replaces initialize; a
 * request answered with `resultType: 'input_required'` is completed here: each input request goes
 * to the client's handler of its method, and the request is retried with `inputResponses` and the
 * `requestState` echoed, on a fresh id, until it completes (at most `maxRounds` rounds).
 */
export class PerRequestSession {
  constructor(
    private readonly clientInfo: Record<string, unknown>,
    private readonly capabilities: Record<string, unknown>,
    private readonly maxRounds = 10,
  ) {}

  /** The params with the envelope in `_meta` (the caller's other `_meta` keys kept). */
  envelope(params: Record<string, unknown> | undefined): Record<string, unknown> {
    const meta = typeof params?._meta === 'object' && params._meta !== null ? (params._meta as Record<string, unknown>) : {};
    return {
      ...params,
      _meta: {
        ...meta,
        [MetaKey.protocolVersion]: PER_REQUEST_VERSION,
        [MetaKey.clientInfo]: this.clientInfo,
        [MetaKey.clientCapabilities]: this.capabilities,
      },
    };
  }

  /** server/discover: what the server serves. Throws -32022 when it does not serve 2026-07-28. */
  async discover(send: RawSend, options: RequestOptions): Promise<ServerDescription> {
    const result = await send('server/discover', {}, options);
    const versions = result?.supportedVersions;
    if (!Array.isArray(versions) || typeof result.capabilities !== 'object' || result.capabilities === null) {
      throw new McpError(-32603, 'The server answered server/discover without supportedVersions and capabilities');
    }
    if (!versions.includes(PER_REQUEST_VERSION)) {
      throw new McpError(
        PerRequestErrorCode.UnsupportedProtocolVersion,
        `The server does not serve ${PER_REQUEST_VERSION} (it serves ${versions.join(', ')})`,
        { supported: versions },
      );
    }
    const meta = (result._meta ?? {}) as Record<string, unknown>;
    const info = meta[MetaKey.serverInfo] as ServerDescription['serverInfo'] | undefined;
    return {
      ...result,
      protocolVersion: PER_REQUEST_VERSION,
      supportedVersions: versions as string[],
      capabilities: result.capabilities as Record<string, unknown>,
      serverInfo: info ?? { name: 'unknown', version: 'unknown' },
      ...(typeof result.instructions === 'string' ? { instructions: result.instructions } : {}),
    };
  }

  /** A request, completed through as many input rounds as it takes. */
  async request(
    send: RawSend,
    answer: InputAnswer,
    method: string,
    params: Record<string, unknown>,
    options: RequestOptions,
  ): Promise<Record<string, unknown>> {
    let round: Record<string, unknown> = params;
    for (let n = 0; ; n++) {
      let id: RequestId = 0;
      const sent = round;
      const run = () => send(method, sent, { ...options, onRequestId: (given) => options.onRequestId?.((id = given)) });
      const result = await (options.round ? options.round(n, run) : run());
      if (result?.resultType !== 'input_required') return complete(result);
      if (n + 1 >= this.maxRounds) throw new McpError(-32603, `${method} still needed input after ${this.maxRounds} rounds; giving up`);
      const requests = (result.inputRequests ?? {}) as Record<string, { method?: unknown; params?: unknown }>;
      const inputResponses: Record<string, unknown> = {};
      const signal = options.signal ?? new AbortController().signal;
      await Promise.all(
        Object.entries(requests).map(async ([key, request]) => {
          if (typeof request?.method !== 'string')
            throw new McpError(-32603, `The server's input request "${key.slice(0, 64)}" names no method`);
          const p = (typeof request.params === 'object' && request.params !== null ? request.params : {}) as Record<string, unknown>;
          inputResponses[key] = options.onInputRequest
            ? await options.onInputRequest(request.method, p)
            : await answer(request.method, p, { requestId: `${String(id)}:${key}`, relatedRequestId: id, signal });
        }),
      );
      if (Object.keys(requests).length === 0) await new Promise((r) => setTimeout(r, RETRY_PAUSE_MS));
      round = {
        ...params,
        ...(Object.keys(inputResponses).length > 0 ? { inputResponses } : {}),
        ...(result.requestState !== undefined ? { requestState: result.requestState } : {}),
      };
    }
  }
}

/** A complete result as the handshake era knows it: without the per-request `resultType`. */
function complete(result: Record<string, unknown>): Record<string, unknown> {
  if (!result || typeof result !== 'object' || !('resultType' in result)) return result;
  const { resultType: _resultType, ...rest } = result;
  return rest;
}

/** True for the answers on which `auto` gives up on server/discover and initializes instead. */
export function isDiscoverRefusal(error: unknown): boolean {
  return error instanceof McpError && error.code !== -32001;
}
