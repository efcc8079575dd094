import type { ChildProcess } from 'node:child_process';

/** CPU time (µs) a bench server process used so far, over IPC from the process itself (servers/ipc.ts). */
export function cpuOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (m: { type?: string; micros?: number }) => {
      if (m.type !== 'cpu') return;
      child.off('message', onMessage);
      resolve(m.micros!);
    };
    child.on('message', onMessage);
    child.send({ type: 'cpu' });
  });
}
