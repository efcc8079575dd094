/** The bench harness talks to server processes over IPC: they report their port and, on request, their heap. */
export function reportReady(info: Record<string, unknown>): void {
  process.send?.({ type: 'ready', ...info });
  process.on('message', (message: { type?: string }) => {
    if (message?.type === 'heap') {
      const gc = (globalThis as { gc?: () => void }).gc;
      gc?.();
      gc?.();
      process.send?.({ type: 'heap', heapUsed: process.memoryUsage().heapUsed });
    }
  });
}

export const TOOL_COUNT = Number(process.env.TOOLS ?? 1);
export const MODE = process.env.MODE ?? 'stateless';
