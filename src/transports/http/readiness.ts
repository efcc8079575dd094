/** Something the readiness endpoint asks: a store with an optional `ready()` probe (absent: ready). */
export interface ReadinessProbe {
  ready?(): Promise<void>;
}

/** A probe that neither answers nor fails within this time counts as not ready (a Redis client queues commands while it reconnects). */
const PROBE_TIMEOUT_MS = 2_000;

export interface ReadinessReport {
  ready: boolean;
  stores: Record<string, { status: 'ready' | 'not ready'; error?: string }>;
}

/** Asks every store at once; the server is ready when all of them are. */
export async function checkReadiness(probes: Record<string, ReadinessProbe | undefined>): Promise<ReadinessReport> {
  const named = Object.entries(probes).filter((e): e is [string, ReadinessProbe] => e[1] !== undefined);
  const results = await Promise.all(named.map(async ([name, probe]) => [name, await probeOne(probe)] as const));
  return { ready: results.every(([, r]) => r.status === 'ready'), stores: Object.fromEntries(results) };
}

async function probeOne(probe: ReadinessProbe): Promise<ReadinessReport['stores'][string]> {
  if (!probe.ready) return { status: 'ready' };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS);
  });
  try {
    await Promise.race([probe.ready(), timeout]);
    return { status: 'ready' };
  } catch (error) {
    return { status: 'not ready', error: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}
