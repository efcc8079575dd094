import type { RequestId } from '../mcp/json-rpc';
import { ErrorCode } from '../mcp/json-rpc';
import { McpError } from '../mcp/mcp.error';
import {
  RELATED_TASK,
  type CreateMessageParams,
  type CreateMessageResult,
  type ElicitResult,
  type LoggingLevel,
  type Root,
} from '../mcp/mcp-types';
import { passesLogLevel } from './peer';
import type { RequestScope } from './request-scope';
import { elicitationSchema } from '../schema/elicitation-schema.builder';
import { validateInput } from '../validation/validate-input';
import { missingCapability } from './per-request/envelope';
import { declaresExtension, extensionsOf, type Extensions } from '../mcp/extensions';
import {
  type AuthInfo,
  type ClientRequestOptions,
  type ElicitFormResult,
  type ElicitFormRequest,
  type ElicitUrlRequest,
  McpContext,
  type McpLogger,
  type SessionInfo,
} from '../context/mcp-context';

/** The `McpContext` of one request, bound to its session. */
export class RequestContext extends McpContext {
  private logger?: McpLogger;
  private lastProgress = -Infinity;
  private done = false;

  constructor(private readonly scope: RequestScope) {
    super();
  }

  get log(): McpLogger {
    this.logger ??= createLogger((level, data, logger) => this.sendLog(level, data, logger));
    return this.logger;
  }

  get requestId(): RequestId {
    return this.scope.id;
  }
  get signal(): AbortSignal {
    return this.scope.signal;
  }
  get session(): SessionInfo {
    const peer = this.scope.peer;
    return {
      id: peer.sessionId,
      protocolVersion: peer.protocolVersion,
      clientInfo: peer.clientInfo,
      clientCapabilities: peer.clientCapabilities,
    };
  }
  get meta(): Readonly<Record<string, unknown>> | undefined {
    return this.scope.params._meta as Record<string, unknown> | undefined;
  }
  get headers(): Readonly<Record<string, string | string[] | undefined>> | undefined {
    return this.scope.extra?.headers;
  }
  get auth(): AuthInfo | undefined {
    return this.scope.extra?.auth;
  }
  override get clientAddress(): string | undefined {
    return this.scope.extra?.network?.peerAddress;
  }

  /** Internal (call policies): aborts the handler's signal without cancelling the request. */
  abortHandler(reason: unknown): void {
    this.scope.abortHandler(reason);
  }
  get extensions(): Extensions {
    return extensionsOf(this.scope.peer.clientCapabilities);
  }

  supportsExtension(id: string): boolean {
    return declaresExtension(this.scope.peer.clientCapabilities, id);
  }

  async progress(progress: number, total?: number, message?: string): Promise<void> {
    const token = this.meta?.progressToken;
    if (this.done || (typeof token !== 'string' && typeof token !== 'number')) return;
    if (!(progress > this.lastProgress)) return;
    this.lastProgress = progress;
    const params: Record<string, unknown> = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    await this.scope.outbound.notify('notifications/progress', this.withTask(params), this.scope.id);
  }

  async elicit(request: ElicitFormRequest | ElicitUrlRequest, options?: ClientRequestOptions): Promise<ElicitResult> {
    const caps = this.scope.peer.clientCapabilities.elicitation;
    const mode = request.mode ?? 'form';
    const supported = mode === 'url' ? caps?.url !== undefined : caps !== undefined && (caps.form !== undefined || caps.url === undefined);
    if (!supported) throw this.capabilityError(`elicitation (${mode} mode)`, { elicitation: { [mode]: {} } });
    return (await this.clientRequest('elicitation/create', { ...request }, options)) as ElicitResult;
  }

  async elicitForm<T extends object>(message: string, form: new () => T, options?: ClientRequestOptions): Promise<ElicitFormResult<T>> {
    const result = await this.elicit({ message, requestedSchema: elicitationSchema(form) }, options);
    if (result.action !== 'accept') return { action: result.action };
    const checked = await validateInput<T>(form, result.content ?? {});
    if (!checked.ok) throw McpError.invalidParams(`The elicitation answer does not fit ${form.name}: ${checked.issues.join('; ')}`);
    return { action: 'accept', content: checked.value };
  }

  async completeElicitation(elicitationId: string): Promise<void> {
    await this.scope.outbound.notify('notifications/elicitation/complete', { elicitationId });
  }

  async sample(params: CreateMessageParams, options?: ClientRequestOptions): Promise<CreateMessageResult> {
    if (!this.scope.peer.clientCapabilities.sampling) throw this.capabilityError('sampling', { sampling: {} });
    return (await this.clientRequest('sampling/createMessage', { ...params }, options)) as CreateMessageResult;
  }

  async roots(options?: ClientRequestOptions): Promise<Root[]> {
    if (!this.scope.peer.clientCapabilities.roots) throw this.capabilityError('roots', { roots: {} });
    const result = (await this.clientRequest('roots/list', {}, options)) as { roots?: Root[] };
    return result.roots ?? [];
  }

  async once<T>(key: string, compute: () => T | Promise<T>): Promise<T> {
    const round = this.scope.round;
    return round ? round.once(key, compute) : compute();
  }

  closeStream(): void {
    this.scope.extra?.closeStream?.();
  }

  /** Called when the request has been answered: later progress is dropped. */
  finish(): void {
    this.done = true;
  }

  private async clientRequest(method: string, params: Record<string, unknown>, options?: ClientRequestOptions): Promise<unknown> {
    const signal = options?.signal ? AbortSignal.any([options.signal, this.signal]) : this.signal;
    const task = this.scope.task;
    // Inside a task, the task carries the request (and waits for input meanwhile); it names the task.
    if (task)
      return task.request(method, this.withTask(params), {
        timeoutMs: options?.timeoutMs,
        signal,
        key: options?.key,
        beforeTask: options?.beforeTask,
      });
    return this.scope.outbound.request(method, params, {
      relatedRequestId: this.scope.id,
      timeoutMs: options?.timeoutMs,
      signal,
      key: options?.key,
    });
  }

  /** The client lacks a capability: -32021 naming it in the per-request era, -32600 in a handshake session. */
  private capabilityError(what: string, required: Record<string, unknown>): McpError {
    if (this.scope.peer.perRequest) return missingCapability(required, what);
    return new McpError(ErrorCode.InvalidRequest, `The client does not support ${what}`);
  }

  /** Adds the related-task `_meta` when the request runs as a task. */
  private withTask(params: Record<string, unknown>): Record<string, unknown> {
    const task = this.scope.task;
    if (!task) return params;
    return { ...params, _meta: { ...(params._meta as object | undefined), [RELATED_TASK]: { taskId: task.taskId } } };
  }

  private async sendLog(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    if (!passesLogLevel(this.scope.peer, level)) return;
    const params: Record<string, unknown> = { level, data };
    if (logger !== undefined) params.logger = logger;
    await this.scope.outbound.notify('notifications/message', this.withTask(params), this.scope.id);
  }
}

/** Builds the eight level methods around one sending function. */
function createLogger(send: (level: LoggingLevel, data: unknown, logger?: string) => Promise<void>): McpLogger {
  return {
    debug: (d, l) => send('debug', d, l),
    info: (d, l) => send('info', d, l),
    notice: (d, l) => send('notice', d, l),
    warning: (d, l) => send('warning', d, l),
    error: (d, l) => send('error', d, l),
    critical: (d, l) => send('critical', d, l),
    alert: (d, l) => send('alert', d, l),
    emergency: (d, l) => send('emergency', d, l),
    log: send,
  };
}
