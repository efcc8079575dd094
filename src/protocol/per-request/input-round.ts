import type { ClientCapabilities } from '../../mcp/mcp-types';
import { McpError } from '../../mcp/mcp.error';
import { missingCapability } from './envelope';
import type { RequestStateSealer, RoundState, StateBinding } from './request-state';

/** The interim result of a multi round-trip request. */
export interface InputRequiredResult {
  resultType: 'input_required';
  inputRequests?: Record<string, { method: string; params: Record<string, unknown> }>;
  requestState?: string;
}

/** The client capability each kind of input request needs, and what its answer must look like (MRTR and tasks alike). */
export const INPUT_KINDS: Readonly<Record<string, { capability: string; answer: (value: Record<string, unknown>) => boolean }>> = {
  'elicitation/create': {
    capability: 'elicitation',
    answer: (v) => v.action === 'accept' || v.action === 'decline' || v.action === 'cancel',
  },
  'sampling/createMessage': { capability: 'sampling', answer: (v) => typeof v.content === 'object' && v.content !== null },
  'roots/list': { capability: 'roots', answer: (v) => Array.isArray(v.roots) },
};

const hasOwn = (o: object, key: string) => Object.prototype.hasOwnProperty.call(o, key);

/**
 * One run of a handler inside a per-request multi round-trip request (tools/call, prompts/get,
 * resources/read). The handler re-runs on every retry; each of its requests to the client (ctx.elicit,
 * ctx.sample, ctx.roots) has a key (the `key` option, else `<kind>-<n>` by call order) and is answered
 * from the retry's `inputResponses` or from the answers of earlier rounds sealed in requestState. The
 * first run that asks for something unanswered ends with an InputRequiredResult carrying what is
 * missing and the sealed state (answers so far, values kept with ctx.once).
 */
export class InputRound {
  private next = 0;
  private answers: Record<string, unknown> = {};
  private kept: Record<string, unknown> = {};
  private readonly issued = new Map<string, { method: string; params: Record<string, unknown> }>();
  private stop?: Promise<never>;

  constructor(
    private readonly sealer: RequestStateSealer,
    private readonly binding: StateBinding,
    private readonly capabilities: ClientCapabilities,
    /** The requestState of the retry, not yet opened. */
    private readonly state: unknown,
    private readonly responses: Record<string, unknown> = {},
  ) {}

  /** Opens the retry's requestState (-32602 when it fails verification) before the handler runs. */
  open(): void {
    if (this.state === undefined) return;
    const previous: RoundState = this.sealer.open(this.state, this.binding);
    this.answers = { ...previous.answers };
    this.kept = { ...previous.kept };
  }

  /** True once the handler asked for something the client has not answered: this run ends with an InputRequiredResult. */
  get needsInput(): boolean {
    return this.issued.size > 0;
  }

  /**
   * A request to the client: its answer when the client gave it, else recorded for the interim result,
   * and the returned promise rejects with InputRequiredError so that the handler stops there (its
   * `finally` blocks run). Requests made together (Promise.all) all go into the same round.
   */
  request(method: string, params: Record<string, unknown>, key?: string): Promise<unknown> {
    const kind = INPUT_KINDS[method];
    if (!kind) return Promise.reject(new McpError(-32603, `${method} cannot be asked of a 2026-07-28 client`));
    if ((this.capabilities as Record<string, unknown>)[kind.capability] === undefined) {
      return Promise.reject(missingCapability({ [kind.capability]: {} }, kind.capability));
    }
    const index = this.next++;
    const k = key ?? `${kind.capability}-${index}`;
    if (hasOwn(this.responses, k)) {
      const answer = this.responses[k];
      if (typeof answer !== 'object' || answer === null || Array.isArray(answer) || !kind.answer(answer as Record<string, unknown>)) {
        return Promise.reject(
          McpError.invalidParams(`Invalid params: inputResponses["${k.slice(0, 64)}"] is not a valid answer to ${method}`),
        );
      }
      this.answers[k] = answer;
      return Promise.resolve(answer);
    }
    if (hasOwn(this.answers, k)) return Promise.resolve(this.answers[k]);
    if (!this.issued.has(k)) this.issued.set(k, { method, params });
    if (!this.stop) {
      this.stop = Promise.reject(new InputRequiredError());
      // A handler may hold the promise without awaiting it yet: that is no unhandled rejection.
      this.stop.catch(() => undefined);
    }
    return this.stop;
  }

  /** A value computed once per multi round-trip request and carried in requestState across its rounds. */
  async once<T>(key: string, compute: () => T | Promise<T>): Promise<T> {
    if (hasOwn(this.kept, key)) return this.kept[key] as T;
    const value = await compute();
    this.kept[key] = value === undefined ? null : value;
    return value;
  }

  /** The InputRequiredResult of a run that needs input. */
  interim(): InputRequiredResult {
    const inputRequests: NonNullable<InputRequiredResult['inputRequests']> = {};
    for (const [key, request] of this.issued) inputRequests[key] = request;
    return {
      resultType: 'input_required',
      inputRequests,
      requestState: this.sealer.seal(this.binding, { answers: this.answers, kept: this.kept }),
    };
  }
}

/**
 * What `ctx.elicit`, `ctx.sample` and `ctx.roots` reject with in a 2026-07-28 request when the client
 * has not answered yet: the handler stops, and the request is answered with an InputRequiredResult
 * (the client retries it with the answers, and the handler runs again from the start). Let it
 * propagate; a handler that catches errors around these calls should rethrow it (`isInputRequired`).
 * Even when a handler swallows it, the request still ends with the InputRequiredResult.
 */
export class InputRequiredError extends McpError {
  constructor() {
    super(-32603, 'The request needs input from the client; it will be retried with the answers');
    this.name = 'InputRequiredError';
  }
}

/** True for the error a 2026-07-28 handler's request to the client rejects with until the client answers. */
export function isInputRequired(error: unknown): error is InputRequiredError {
  return error instanceof InputRequiredError;
}
