import type { ListKind } from '../../registry/registry';

/** A change that `subscriptions/listen` streams may be told about. */
export type ChangeEvent =
  /** Lists that changed: for every stream, or (`owner`) for that caller's streams only (the tool groups it turned on). */
  | { kind: 'lists'; lists: ListKind[]; owner?: string }
  | { kind: 'resource'; uri: string }
  /** A task's new state (the tasks extension's `notifications/tasks`), for its owner's streams naming it. */
  | { kind: 'task'; taskId: string; owner: string; params: Record<string, unknown> };

/**
 * Carries changes between the instances of a deployment, so that a listen stream held by one
 * instance hears of a change made on another. Messages an instance publishes never come back to it.
 * mcpkit wires one over the session backplane when scaling out.
 */
export interface ChangeBus {
  publish(event: ChangeEvent): Promise<void>;
  /** Listens to the other instances' changes; resolves once listening, with the function that stops it. */
  subscribe(listener: (event: ChangeEvent) => void): Promise<() => Promise<void>>;
}

/** One open `subscriptions/listen` stream, as the hub sees it. */
export interface ChangeListener {
  /** The lists it hears of. */
  readonly lists: ReadonlySet<ListKind>;
  /** The resources whose updates it hears of. */
  readonly uris: ReadonlySet<string>;
  /** The tasks whose status changes it hears of (tasks extension), and who may hear of them. */
  readonly taskIds?: ReadonlySet<string>;
  readonly owner?: string;
  /** The connection it was opened on (counted by `heldBy`). */
  readonly holder: object;
  /** Sends a change notification on the stream (never rejects). */
  deliver(method: string, params: Record<string, unknown>): void;
  /** The server ends the subscription (shutdown): the stream gets its final result. */
  end(): void;
}

/**
 * The open `subscriptions/listen` streams of an application: changes of this instance (and, when
 * scaling out, of the others) reach those whose filter names them.
 */
export class SubscriptionHub {
  private readonly listeners = new Set<ChangeListener>();
  private bus?: ChangeBus;
  private listening?: Promise<void>;
  private stop?: () => Promise<void>;
  private closed = false;

  constructor(private readonly logError: (message: string, error?: unknown) => void) {}

  /** Shares changes with the other instances through `bus` (none: this instance only). */
  attach(bus: ChangeBus | undefined): void {
    this.bus = bus;
  }

  /**
   * Resolves once changes of other instances reach this one (the bus is subscribed to on the first
   * listen stream, once per instance). Never rejects: a bus that cannot be reached is logged, and the
   * stream still hears of this instance's changes.
   */
  ready(): Promise<void> {
    const bus = this.bus;
    if (!bus || this.closed) return Promise.resolve();
    this.listening ??= bus
      .subscribe((event) => {
        if (isChangeEvent(event)) this.deliver(event);
      })
      .then(
        (stop) => {
          this.stop = stop;
          // Closed while subscribing: stop at once.
          if (this.closed) return this.unsubscribe();
        },
        (error) => {
          this.listening = undefined;
          this.logError('Could not listen to the changes of other instances', error);
        },
      );
    return this.listening;
  }

  /** Adds a stream; returns the function that removes it. A closed hub ends the stream at once. */
  add(listener: ChangeListener): () => void {
    if (this.closed) {
      listener.end();
      return () => undefined;
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Streams open on one connection (they never finish by themselves: a drain does not wait for them). */
  heldBy(holder: object): number {
    let n = 0;
    for (const l of this.listeners) if (l.holder === holder) n++;
    return n;
  }

  get size(): number {
    return this.listeners.size;
  }

  /** Something changed here: tells the streams here, then the other instances. */
  async changed(event: ChangeEvent): Promise<void> {
    this.deliver(event);
    if (!this.bus || this.closed) return;
    try {
      await this.bus.publish(event);
    } catch (error) {
      this.logError('Could not tell the other instances of a change', error);
    }
  }

  /** Ends every stream gracefully (shutdown) and stops listening to other instances. */
  async close(): Promise<void> {
    this.closed = true;
    for (const l of [...this.listeners]) l.end();
    this.listeners.clear();
    await this.unsubscribe();
  }

  private async unsubscribe(): Promise<void> {
    const stop = this.stop;
    this.stop = undefined;
    await stop?.().catch((error) => this.logError('Could not stop listening to the changes of other instances', error));
  }

  private deliver(event: ChangeEvent): void {
    for (const l of this.listeners) {
      if (event.kind === 'resource') {
        if (l.uris.has(event.uri)) l.deliver('notifications/resources/updated', { uri: event.uri });
      } else if (event.kind === 'task') {
        if (l.taskIds?.has(event.taskId) && l.owner === event.owner) l.deliver('notifications/tasks', event.params);
      } else if (event.owner === undefined || l.owner === event.owner) {
        for (const list of event.lists) if (l.lists.has(list)) l.deliver(`notifications/${list}/list_changed`, {});
      }
    }
  }
}

const LIST_KINDS = new Set<unknown>(['tools', 'resources', 'prompts']);

/** What another instance sent is checked: a malformed event reaches no stream. */
function isChangeEvent(value: unknown): value is ChangeEvent {
  const event = value as Partial<Record<string, unknown>> | null;
  if (typeof event !== 'object' || event === null) return false;
  if (event.kind === 'resource') return typeof event.uri === 'string';
  if (event.kind === 'task')
    return typeof event.taskId === 'string' && typeof event.owner === 'string' && typeof event.params === 'object' && event.params !== null;
  return (
    event.kind === 'lists' &&
    Array.isArray(event.lists) &&
    event.lists.every((l) => LIST_KINDS.has(l)) &&
    (event.owner === undefined || typeof event.owner === 'string')
  );
}
