import type { Upstream } from './proxy';
import { SERVICES, type ServiceName } from './routes';
import { getFromService } from './service-request';

export type ServiceHealth = { status: 'ok' } | { status: 'unavailable'; reason: string } | { status: 'not_deployed' };

export interface HealthReport {
  status: 'ok' | 'degraded';
  services: Record<ServiceName, ServiceHealth>;
}

/**
 * Asks every deployed service's /healthz at once. The installation is ok only when each deployed
 * service says so; services that are not deployed do not count against it.
 */
export async function checkHealth(upstreams: ReadonlyMap<ServiceName, Upstream>, timeoutMs: number, requestId: string): Promise<HealthReport> {
  const entries = await Promise.all(
    SERVICES.map(async (name): Promise<[ServiceName, ServiceHealth]> => {
      const upstream = upstreams.get(name);
      if (!upstream) return [name, { status: 'not_deployed' }];
      try {
        const answer = await getFromService(upstream, '/healthz', { timeoutMs, maxBytes: 64 * 1024, requestId });
        if (answer.status === 200) return [name, { status: 'ok' }];
        return [name, { status: 'unavailable', reason: `/healthz answered ${answer.status}` }];
      } catch (error) {
        return [name, { status: 'unavailable', reason: describeFailure(error) }];
      }
    }),
  );
  const services = Object.fromEntries(entries) as Record<ServiceName, ServiceHealth>;
  const healthy = entries.every(([, health]) => health.status !== 'unavailable');
  return { status: healthy ? 'ok' : 'degraded', services };
}

function describeFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code !== undefined) return code;
  // Our own timeout and size errors: their messages name only the service and the path.
  return error instanceof Error ? error.message : 'no answer';
}
