import { FakeRoutes, type FakeReply } from './fake-server';
import type { FakeClock } from './platform-clock';
import type { FaultQueue } from './platform-faults';
import type { PlatformLoggedRequest } from './platform-server';

/** What a marketing fake exposes to its control routes. */
export interface ControlTarget {
  platform: 'hubspot' | 'zoom' | 'eventbrite';
  baseUrl(): string;
  clock: FakeClock;
  faults: FaultQueue;
  requests(): PlatformLoggedRequest[];
  setLimits(limits: unknown): void;
  /** Seeds the starting account (the body is the platform's seed options). */
  seed(body: Record<string, unknown>): unknown;
  /** A new account: its credentials. */
  createAccount(): unknown;
  /** Makes credentials stop working (what the body names is platform-specific). */
  revoke(body: Record<string, unknown>): void;
}

const bad = (message: string): FakeReply => ({ status: 400, body: { error: 'bad_control_request', message } });

/**
 * Test controls over HTTP, for a fake running in a process of its own (the CLI, an out-of-process
 * benchmark): under `/__fake/`, no authentication, never part of the platform's API.
 *
 * - `POST /__fake/seed` with the platform's seed options (`{"events": 100, "attendeesPerEvent": 10}`)
 * - `POST /__fake/accounts`: a new account and its credentials
 * - `POST /__fake/revoke`: credentials stop working (HubSpot `{"token", "expired"?}`, Zoom
 *   `{"accountId"?, "app"?}`: its access tokens, or its whole app; Eventbrite `{"token"}`)
 * - `POST /__fake/clock` with `{"advanceMs"}`, `{"set": epochMs}`, `{"freeze": true|false}`
 * - `POST /__fake/limits` with `{"limits": …}` as the starter takes them
 * - `POST /__fake/faults` with `{"kind": "serverErrors" | "cutConnection" | "slow" | "rateLimit", …options}`
 *   (`path` a string the request path contains); `DELETE` clears them
 * - `GET /__fake/health`: the platform, its base URL, how many requests the log holds
 * - `GET /__fake/requests?last=100`: `{total, byStatus, requests[]}` (the last ones, with status and fault);
 *   `DELETE` empties the log
 *
 * The same `/__fake` prefix and the health/requests/faults routes as the model-vendor fakes' control.
 */
export function addControlRoutes(routes: FakeRoutes, target: ControlTarget): FakeRoutes {
  const body = (json: unknown): Record<string, unknown> | undefined => (typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : undefined);
  const attempt = (fn: () => unknown): FakeReply => {
    try {
      return { body: fn() ?? { ok: true } };
    } catch (err) {
      return bad((err as Error).message);
    }
  };
  const kinds = ['serverErrors', 'cutConnection', 'slow', 'rateLimit'] as const;
  return routes
    .route('POST', '/__fake/seed', (req) => {
      const options = body(req.json);
      return options ? attempt(() => target.seed(options)) : bad('Send the seed options as a JSON object.');
    })
    .route('POST', '/__fake/accounts', () => attempt(() => target.createAccount()))
    .route('POST', '/__fake/revoke', (req) => attempt(() => target.revoke(body(req.json) ?? {})))
    .route('POST', '/__fake/clock', (req) => {
      const options = body(req.json) ?? {};
      if (typeof options.advanceMs === 'number') target.clock.advance(options.advanceMs);
      else if (typeof options.set === 'number') target.clock.set(options.set);
      else if (options.freeze === true) target.clock.freeze();
      else if (options.freeze === false) target.clock.unfreeze();
      else return bad('Send {"advanceMs": n}, {"set": epochMs} or {"freeze": true|false}.');
      return { body: { now: target.clock.now() } };
    })
    .route('POST', '/__fake/limits', (req) => {
      const options = body(req.json);
      return options && 'limits' in options ? attempt(() => target.setLimits(options.limits)) : bad('Send {"limits": …} as the fake takes them.');
    })
    .route('POST', '/__fake/faults', (req) => {
      const options = body(req.json);
      const kind = options?.kind as (typeof kinds)[number] | undefined;
      if (!options || !kind || !kinds.includes(kind)) return bad(`Send {"kind": one of ${kinds.join(', ')}, …its options}.`);
      if (options.path !== undefined && typeof options.path !== 'string') return bad('path is a string the request path must contain.');
      const { kind: _kind, ...rest } = options;
      return attempt(() => (target.faults[kind] as (o: unknown) => void).call(target.faults, rest));
    })
    .route('DELETE', '/__fake/faults', () => attempt(() => target.faults.clear()))
    .route('GET', '/__fake/health', () => ({ body: { platform: target.platform, baseUrl: target.baseUrl(), requests: target.requests().length } }))
    .route('GET', '/__fake/requests', (req) => {
      const all = target.requests();
      const byStatus: Record<string, number> = {};
      for (const r of all) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
      const last = Math.max(0, Math.min(Number(req.query.get('last') ?? 100) || 0, 10_000));
      const requests = all.slice(all.length - last).map((r) => ({ method: r.method, path: r.path, query: Object.fromEntries(r.query), headers: r.headers, json: r.json, status: r.status, fault: r.fault ?? null, at: r.at }));
      return { body: { total: all.length, byStatus, requests } };
    })
    .route('DELETE', '/__fake/requests', () => {
      target.requests().length = 0;
      return { body: { ok: true } };
    });
}
