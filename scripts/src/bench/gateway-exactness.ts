import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chatBody } from './gateway-legs';
import { formatInt, progress } from './report';
import type { RunningService, ServiceGroup } from './services';

/**
 * Exactness under load (issue 24 §4): three gateway replicas with leased admission and three with
 * per-request admission (GATEWAY_SPEND_LEASES=false), on a Redis of the leg's own (a private
 * redis-server on REDIS_PORT, so it can be restarted mid-run without touching anyone else's), 300
 * concurrent requests against a limit that fits about 100 at their real cost: a key limit, the
 * organization's credit, a project budget, and the key limit again with Redis restarted in the middle.
 */
const REDIS_PORT = 19_511;
const REQUESTS = 300;
const MODEL = 'openai/gpt-4o-mini';

export interface ExactnessContext {
  group: ServiceGroup;
  gatewayEntry: string;
  env: Record<string, string>;
  admin(args: string[]): Promise<Record<string, unknown>>;
}

interface Org {
  organizationId: string;
  mgmtKey: string;
}

async function json(res: Response, what: string, status = 200): Promise<Record<string, any>> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`${what} answered ${res.status}: ${text.slice(0, 300)}`);
  const parsed = JSON.parse(text) as Record<string, any>;
  return (parsed.data ?? parsed) as Record<string, any>;
}

function startRedis(dir: string): ChildProcess {
  const child = spawn('redis-server', ['--port', String(REDIS_PORT), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  return child;
}

async function waitForRedis(): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const probe = spawn('redis-cli', ['-p', String(REDIS_PORT), 'ping'], { stdio: ['ignore', 'pipe', 'ignore'] });
      let out = '';
      probe.stdout.on('data', (d: Buffer) => (out += d.toString()));
      probe.on('exit', () => resolve(out.includes('PONG')));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`the leg's redis-server on port ${REDIS_PORT} did not start`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function stopRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

export async function exactnessUnderLoad(ctx: ExactnessContext): Promise<string[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-exactness-redis-'));
  let redis = startRedis(dir);
  try {
    await waitForRedis();
    const redisUrl = `redis://127.0.0.1:${REDIS_PORT}`;
    const start = (name: string, leases: boolean): Promise<RunningService[]> =>
      Promise.all(
        [0, 1, 2].map((i) =>
          ctx.group.start({
            name: `${name}-${i + 1}`,
            entry: ctx.gatewayEntry,
            env: { ...ctx.env, REDIS_URL: redisUrl, GATEWAY_SPEND_LEASES: String(leases), GATEWAY_USAGE_WORKERS: i === 0 ? 'true' : 'false', PATCHBAY_MIGRATE_ON_START: 'false' },
          }),
        ),
      );
    progress(`exactness under load: six gateway replicas on a redis-server of their own (port ${REDIS_PORT})`);
    const leased = await start('gateway-leases', true);
    const perRequest = await start('gateway-per-request', false);
    const admin = leased[0]!.baseUrl;

    const newOrg = async (creditUsd: number): Promise<Org> => {
      const org = await ctx.admin(['org', 'create', '--name', `exactness ${new Date().toISOString()}`, '--plan', 'paid', '--payment-method', 'true', '--gateway-credit-usd', String(creditUsd)]);
      const organizationId = String(org.organization_id);
      const management = await ctx.admin(['mgmt-key', 'create', '--org', organizationId, '--name', 'exactness']);
      return { organizationId, mgmtKey: String(management.key) };
    };
    const post = (org: Org, pathname: string, body: unknown) =>
      fetch(`${admin}${pathname}`, { method: 'POST', headers: { authorization: `Bearer ${org.mgmtKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const newKey = async (org: Org, body: Record<string, unknown>) => json(await post(org, '/v1/keys', { name: 'exactness', ...body }), 'POST /v1/keys', 201) as Promise<{ key: string; hash: string }>;
    const ask = (replica: RunningService, key: string) =>
      fetch(`${replica.baseUrl}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: chatBody(MODEL, false, 32) });

    const recorded = async (org: Org, key: { hash: string }): Promise<{ requests: number; micros: number }> => {
      const usage = await json(await fetch(`${admin}/v1/usage?group_by=key`, { headers: { authorization: `Bearer ${org.mgmtKey}` } }), 'GET /v1/usage');
      const rows = (usage as unknown as { data?: Array<{ key: string; requests: number; failed_requests: number; cost_usd: number }> }).data ?? (usage as unknown as Array<{ key: string; requests: number; failed_requests: number; cost_usd: number }>);
      const mine = rows.filter((r) => r.key === key.hash);
      return { requests: mine.reduce((t, r) => t + r.requests - r.failed_requests, 0), micros: Math.round(mine.reduce((t, r) => t + r.cost_usd, 0) * 1e6) };
    };
    // The real cost of one request, from its usage record.
    const probeOrg = await newOrg(1000);
    const probe = await newKey(probeOrg, {});
    for (const r of [...leased, ...perRequest]) {
      const res = await ask(r, probe.key);
      if (res.status !== 200) throw new Error(`exactness: a replica answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
      await res.arrayBuffer();
    }
    await new Promise((r) => setTimeout(r, 1_500));
    const probed = await recorded(probeOrg, probe);
    const cost = Math.round(probed.micros / probed.requests);
    const limitMicros = cost * 100;
    const limitUsd = limitMicros / 1e6;

    const burst = async (replicas: RunningService[], key: string, restartRedis: boolean) => {
      const statuses = new Map<number, number>();
      const restart = restartRedis
        ? (async () => {
            await new Promise((r) => setTimeout(r, 150));
            await stopRedis(redis);
            redis = startRedis(dir);
            await waitForRedis();
          })()
        : Promise.resolve();
      await Promise.all(
        Array.from({ length: REQUESTS }, async (_, i) => {
          // Spread over ~1 s, as a burst of clients would arrive, not all in one tick.
          await new Promise((r) => setTimeout(r, (i * 1000) / REQUESTS));
          const res = await ask(replicas[i % 3]!, key).catch(() => null);
          const status = res ? res.status : 0;
          if (res) await res.arrayBuffer();
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }),
      );
      await restart;
      return statuses;
    };

    type Scenario = { name: string; setup(org: Org): Promise<{ key: { key: string; hash: string }; org: Org }>; creditUsd: number; restart?: boolean; leasesOnly?: boolean };
    const scenarios: Scenario[] = [
      { name: `key limit ${limitUsd} USD (daily)`, creditUsd: 1000, setup: async (org) => ({ key: await newKey(org, { limit: limitUsd, limit_reset: 'daily' }), org }) },
      { name: `organization credit ${limitUsd} USD`, creditUsd: limitUsd, setup: async (org) => ({ key: await newKey(org, {}), org }) },
      {
        name: `project budget ${limitUsd} USD`,
        creditUsd: 1000,
        setup: async (org) => {
          const project = await json(await post(org, '/v1/projects', { name: 'exactness', budget: limitUsd }), 'POST /v1/projects', 201);
          return { key: await newKey(org, { project_id: project.id }), org };
        },
      },
      { name: `key limit ${limitUsd} USD, Redis restarted mid-run`, creditUsd: 1000, restart: true, setup: async (org) => ({ key: await newKey(org, { limit: limitUsd, limit_reset: 'daily' }), org }) },
    ];
    const lines = [
      `  exactness under load: ${REQUESTS} requests over ~1 s from 3 gateway replicas, each request's real cost ${formatInt(cost)} µ$, a limit of ${formatInt(limitMicros)} µ$ (fits 100); spend and admitted requests from the usage records after settlement:`,
    ];
    for (const scenario of scenarios) {
      const row: string[] = [];
      const admitted: number[] = [];
      for (const [label, replicas] of [['leases', leased], ['per request', perRequest]] as const) {
        const org = await newOrg(scenario.creditUsd);
        const { key } = await scenario.setup(org);
        const statuses = await burst(replicas, key.key, scenario.restart === true);
        await new Promise((r) => setTimeout(r, 2_500));
        const records = await recorded(org, key);
        admitted.push(records.requests);
        const byStatus = [...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s === 0 ? 'no answer' : s}: ${n}`).join(', ');
        const over = records.micros - limitMicros;
        row.push(`    ${label}: ${byStatus}; admitted ${records.requests}, spent ${formatInt(records.micros)} µ$ (${over <= 0 ? 'not over' : `OVER by ${formatInt(over)} µ$${over <= cost ? ', under one request: the last one admitted below the limit' : ''}`})`);
      }
      lines.push(`  ${scenario.name}:`, ...row, `    admitted with leases - per request: ${admitted[0]! - admitted[1]!}`);
    }
    return lines;
  } finally {
    await stopRedis(redis);
    rmSync(dir, { recursive: true, force: true });
  }
}
