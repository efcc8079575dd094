import { McpError, mcpErrorOf } from '../../../src/mcp/mcp.error';
import {
  InvalidTaskCursorError,
  InvalidTaskTransitionError,
  StorageUnavailableError,
  TaskStoreFullError,
  toMcpError,
} from '../../../src/tasks/task-store.errors';
import { StorageUnavailableError as FromRedis } from '../../../src/redis/redis-connection';

describe('task store errors as JSON-RPC errors', () => {
  it('states the limit of a full store', () => {
    const e = toMcpError(new TaskStoreFullError(3));
    expect(e).toMatchObject({ code: -32603, message: 'Task store full: at most 3 tasks' });
  });

  it('names the store that is unavailable, without the internal cause', () => {
    const e = toMcpError(new StorageUnavailableError('The task store', new Error('connect ECONNREFUSED 10.0.0.5:6379')));
    expect(e).toMatchObject({ code: -32603, message: 'The task store is unavailable' });
    expect(e?.message).not.toMatch(/ECONNREFUSED|10\.0\.0\.5/);
    expect(FromRedis).toBe(StorageUnavailableError);
  });

  it("answers a bad cursor and an impossible transition as the client's mistake (-32602), echoing little", () => {
    expect(toMcpError(new InvalidTaskCursorError('c'.repeat(10_000)))).toMatchObject({ code: -32602, message: 'Invalid cursor' });
    expect(JSON.stringify(toMcpError(new InvalidTaskCursorError('c'.repeat(10_000)))?.data).length).toBeLessThan(200);
    expect(toMcpError(new InvalidTaskTransitionError('t1', 'completed', 'cancelled'))).toMatchObject({
      code: -32602,
      message: expect.stringContaining("terminal status 'completed'"),
    });
  });

  it('leaves other errors alone, and the generic hook maps any error that knows its JSON-RPC error', () => {
    expect(toMcpError(new Error('x'))).toBeUndefined();
    expect(mcpErrorOf(new Error('x'))).toBeUndefined();
    expect(mcpErrorOf(new TaskStoreFullError(2))).toMatchObject({ code: -32603 });
    const mine = McpError.invalidParams('mine');
    expect(mcpErrorOf(mine)).toBe(mine);
    expect(mcpErrorOf({ toMcpError: () => mine })).toBe(mine);
    // Identified by class, never by name: a look-alike is not mapped.
    const lookAlike = Object.assign(new Error('The task store holds its maximum of 3 tasks'), { name: 'TaskStoreFullError' });
    expect(toMcpError(lookAlike)).toBeUndefined();
  });
});
