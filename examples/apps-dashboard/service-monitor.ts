import { injectable } from 'tsyringe';

export type Health = 'up' | 'degraded' | 'down';

export interface ServiceState {
  name: string;
  health: Health;
  p95Ms: number;
  errorRate: number;
  restarts: number;
}

/**
 * The system the dashboard watches: a few services with their health. Here a fixed, in-memory picture
 * (so the example runs anywhere); in a real server, the place that asks your metrics store.
 */
@injectable()
export class ServiceMonitor {
  private readonly services: ServiceState[] = [
    { name: 'api', health: 'up', p95Ms: 120, errorRate: 0.001, restarts: 0 },
    { name: 'worker', health: 'degraded', p95Ms: 2400, errorRate: 0.04, restarts: 0 },
    { name: 'search', health: 'down', p95Ms: 0, errorRate: 1, restarts: 0 },
  ];

  list(): ServiceState[] {
    return this.services.map((s) => ({ ...s }));
  }

  /** Restarts a service: it comes back healthy. False when there is no such service. */
  restart(name: string): boolean {
    const service = this.services.find((s) => s.name === name);
    if (!service) return false;
    Object.assign(service, { health: 'up', p95Ms: 150, errorRate: 0, restarts: service.restarts + 1 });
    return true;
  }
}
