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

/** The client capability each kind of input request needs, and what its answer must look like. */
const KINDS: Record<string, { capability: string; answer: (value: Record<string, unknown>) => boolean }> = {
  'elicitation/create': { capability: 'elicitation', answer: (v) => v.action === 'accept' || v.action === 'decline' || v.action === 'cancel' },
  'sampling/createMessage': { capability: 'sampling', answer: (v) => typeof v.content === 'object' && v.content !== null },
  'roots/list': { capability: 'roots', answer: (v) => Array.isArray(v.roots) },
};

const hasOwn = (o: object, key: string) => Object.prototype.hasOwnProperty.call(o, key);

/**
 * One run of a handler inside a modern multi round-trip request (tools/call, prompts/get,
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
  /** Called (once, a turn after the first request) when the handler asked for something unanswered. */
  onNeeded?: () => void;

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

  /**
   * A request to the client: its answer when the client gave it, else recorded for the interim result
   * (and the returned promise never settles: the run is abandoned, its signal aborted).
   */
  request(method: string, params: Record<string, unknown>, key?: string): Promise<unknown> {
    const kind = KINDS[method];
    if (!kind) return Promise.reject(new McpError(-32603, `${method} cannot be asked of a 2026-07-28 client`));
    if ((this.capabilities as Record<string, unknown>)[kind.capability] === undefined) {
      return Promise.reject(missingCapability({ [kind.capability]: {} }, kind.capability));
    }
    const index = this.next++;
    const k = key ?? `${kind.capability}-${index}`;
    if (hasOwn(this.responses, k)) {
      const answer = this.responses[k];
      if (typeof answer !== 'object' || answer === null || Array.isArray(answer) || !kind.answer(answer as Record<string, unknown>)) {
        return Promise.reject(McpError.invalidParams(`Invalid params: inputResponses["${k.slice(0, 64)}"] is not a valid answer to ${method}`));
      }
      this.answers[k] = answer;
      return Promise.resolve(answer);
    }
    if (hasOwn(this.answers, k)) return Promise.resolve(this.answers[k]);
    if (!this.issued.has(k)) this.issued.set(k, { method, params });
    // Requests made together (Promise.all) go out in the same round: signal a turn later.
    if (this.issued.size === 1) setImmediate(() => this.onNeeded?.());
    return new Promise(() => undefined);
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
    return { resultType: 'input_required', inputRequests, requestState: this.sealer.seal(this.binding, { answers: this.answers, kept: this.kept }) };
  }
}
