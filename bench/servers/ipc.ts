/**
 * The bench harness talks to server processes over IPC: they report their port, and on request their
 * heap (after a full GC) or the CPU time they used so far, or end at once.
 */
process.on('message', (message: { type?: string }) => {
  if (message?.type === 'heap') {
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    gc?.();
    process.send?.({ type: 'heap', heapUsed: process.memoryUsage().heapUsed });
  } else if (message?.type === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send?.({ type: 'cpu', micros: user + system });
  } else if (message?.type === 'profile-start' || message?.type === 'profile-stop') {
    // bench/profile.ts: V8's sampling profiler over a window of the run, from inside the process.
    void profile(message as { type: string; path?: string });
  } else if (message?.type === 'exit') {
    // bench/request-instructions.ts: the process ends here, nothing after the last answer counted.
    process.exit(0);
  }
});
let profiler: import('node:inspector').Session | undefined;

async function profile(message: { type: string; path?: string }): Promise<void> {
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) => profiler!.post(method, params, (e, r) => (e ? reject(e) : resolve(r))));
  if (message.type === 'profile-start') {
    const { Session } = await import('node:inspector');
    profiler = new Session();
    profiler.connect();
    await post('Profiler.enable');
    await post('Profiler.setSamplingInterval', { interval: 100 });
    await post('Profiler.start');
  } else {
    const { profile } = (await post('Profiler.stop')) as { profile: unknown };
    const { writeFileSync } = await import('node:fs');
    writeFileSync(message.path!, JSON.stringify(profile));
    profiler!.disconnect();
  }
  process.send?.({ type: `${message.type}ed` });
}

// The IPC channel alone must not keep a stdio server alive once its stdin ends.
process.channel?.unref();

export function reportReady(info: Record<string, unknown>): void {
  process.channel?.ref();
  process.send?.({ type: 'ready', ...info });
}

export const TOOL_COUNT = Number(process.env.TOOLS ?? 1);
export const MODE = process.env.MODE ?? 'stateless';
/** Serve the task workload's tool too (only for that workload, so that the others compare like with like). */
export const WITH_TASKS = process.env.TASKS === '1';
/** Serve the SSE retention workload's tool too (flood: many large events on one request stream). */
export const WITH_FLOOD = process.env.FLOOD === '1';
