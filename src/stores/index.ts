/**
 * `mcpkit/stores`: where an application keeps its state. The contracts a store of your own
 * implements (tasks, SSE events for resumption, sessions shared between instances), the types they
 * exchange, and the in-memory stores mcpkit uses by default. `mcpkit/redis` implements the same
 * contracts on Redis; `describeTaskStoreContract` in `mcpkit/testing` checks a task store.
 *
 * @module mcpkit/stores
 */
export type { TaskStore, CreateTaskInput } from '../tasks/task-store';
export type { Task, TaskStatus, TerminalStatus, TaskRecord, TaskOutcome, TaskSegment } from '../tasks/task.types';
export { isTerminal } from '../tasks/task.types';
export {
  TaskStoreError,
  InvalidTaskTransitionError,
  InvalidTaskCursorError,
  TaskStoreFullError,
  StorageUnavailableError,
} from '../tasks/task-store.errors';
export { InMemoryTaskStore } from '../tasks/in-memory.task-store';
export type { InMemoryTaskStoreOptions } from '../tasks/in-memory.task-store';
export type { EventStore, StoredEvent, InMemoryEventStoreOptions } from '../transports/http/event-store';
export { InMemoryEventStore } from '../transports/http/event-store';
export type { SessionBackplane, SessionEnvelope, SharedSessionState } from '../transports/http/session-backplane';
export type { ScaleOutFactory } from '../kernel/scale-out';
export type { PolicyStore, RateDecision, IdempotencyClaim, CacheLookup } from '../contracts/policy-store';
export { InMemoryPolicyStore } from '../policies/in-memory.policy-store';
export type { InMemoryPolicyStoreOptions } from '../policies/in-memory.policy-store';
