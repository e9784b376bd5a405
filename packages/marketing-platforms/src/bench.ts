import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { runSync } from './sync';
import type { Platform, PlatformConnection, SyncPage, SyncSink } from './types';

/**
 * Sync throughput from the local platform fakes, run in a process of their own (the mktg CLI) so
 * they do not share this event loop. For each platform: a reference walk of the same pages with bare
 * `fetch` and `JSON.parse` (the floor: what the fake and the network cost), then a full and an
 * incremental `runSync` into a sink that only counts. Figures in records per second (events +
 * contacts written).
 *
 *   pnpm --filter @patchbay/marketing-platforms bench [--events 200] [--participants 50]
 */

interface Settings {
  [key: string]: string;
}

async function startFakes(events: number, participants: number): Promise<{ settings: Settings; child: ChildProcess }> {
  const cli = require.resolve('@patchbay/provider-fakes/dist/mktg-cli.js');
  const child = spawn(process.execPath, [cli, '--events', String(events), '--participants', String(participants), '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const settings: Settings = {};
  const lines = createInterface({ input: child.stdout! });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the fakes exited (${code}) before READY`)));
    lines.on('line', (line) => {
      if (line === 'READY') return resolve();
      const eq = line.indexOf('=');
      if (eq > 0) settings[line.slice(0, eq)] = line.slice(eq + 1);
    });
  });
  return { settings, child };
}

function connections(s: Settings): Record<Platform, PlatformConnection> {
  return {
    hubspot: { platform: 'hubspot', baseUrl: s.PATCHBAY_MKTG_HUBSPOT_BASE_URL!, credentials: { access_token: s.HUBSPOT_ACCESS_TOKEN! } },
    zoom: {
      platform: 'zoom',
      baseUrl: s.PATCHBAY_MKTG_ZOOM_BASE_URL!,
      tokenUrl: s.ZOOM_TOKEN_URL!,
      credentials: { account_id: s.ZOOM_ACCOUNT_ID!, client_id: s.ZOOM_CLIENT_ID!, client_secret: s.ZOOM_CLIENT_SECRET! },
    },
    eventbrite: { platform: 'eventbrite', baseUrl: s.PATCHBAY_MKTG_EVENTBRITE_BASE_URL!, credentials: { access_token: s.EVENTBRITE_TOKEN! } },
  };
}

type Json = Record<string, any>;

async function getJson(url: string, authorization: string, init: { method?: string; body?: string } = {}): Promise<Json> {
  const res = await fetch(url, { method: init.method ?? 'GET', headers: { authorization, 'content-type': 'application/json' }, body: init.body });
  if (res.status >= 300) throw new Error(`${url}: ${res.status}`);
  return JSON.parse(await res.text()) as Json;
}

/** The floor: the same listings with bare fetch and JSON.parse, no mapping, hashing or checkpoints. Returns records seen. */
async function referenceWalk(conn: PlatformConnection): Promise<number> {
  let records = 0;
  const base = conn.baseUrl;
  if (conn.platform === 'hubspot') {
    const auth = `Bearer ${conn.credentials.access_token}`;
    for (let after: string | undefined, first = true; first || after; first = false) {
      const page = await getJson(`${base}/marketing/v3/marketing-events/?limit=100${after ? `&after=${after}` : ''}`, auth);
      after = page.paging?.next?.after;
      for (const e of page.results as Json[]) {
        records += 1;
        for (let a: string | undefined, f = true; f || a; f = false) {
          const p = await getJson(`${base}/marketing/v3/marketing-events/participations/${e.objectId}/breakdown?limit=100${a ? `&after=${a}` : ''}`, auth);
          a = p.paging?.next?.after;
          const ids = (p.results as Json[]).map((r) => ({ id: r.associations.contact.contactId }));
          if (ids.length > 0) records += ((await getJson(`${base}/crm/v3/objects/contacts/batch/read`, auth, { method: 'POST', body: JSON.stringify({ inputs: ids, properties: ['email', 'phone', 'country'] }) })).results as Json[]).length;
        }
      }
    }
  } else if (conn.platform === 'zoom') {
    const token = await fetch(`${conn.tokenUrl}?grant_type=account_credentials&account_id=${conn.credentials.account_id}`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${conn.credentials.client_id}:${conn.credentials.client_secret}`).toString('base64')}` },
    });
    const auth = `Bearer ${((await token.json()) as Json).access_token}`;
    for (let t = '', first = true; first || t; first = false) {
      const page = await getJson(`${base}/users/me/webinars?page_size=300${t ? `&next_page_token=${t}` : ''}`, auth);
      t = page.next_page_token;
      for (const w of page.webinars as Json[]) {
        records += 1;
        for (let r = '', f = true; f || r; f = false) {
          const p = await getJson(`${base}/webinars/${w.id}/registrants?page_size=300${r ? `&next_page_token=${r}` : ''}`, auth);
          r = p.next_page_token;
          records += (p.registrants as Json[]).length;
        }
      }
    }
  } else {
    const auth = `Bearer ${conn.credentials.access_token}`;
    const orgs = ((await getJson(`${base}/users/me/organizations/`, auth)).organizations as Json[]).map((o) => o.id as string);
    for (const org of orgs) {
      for (let c: string | undefined, first = true; first || c; first = false) {
        const page = await getJson(`${base}/organizations/${org}/events/?status=all&order_by=created_asc&page_size=200${c ? `&continuation=${c}` : ''}`, auth);
        c = page.pagination.has_more_items ? page.pagination.continuation : undefined;
        for (const e of page.events as Json[]) {
          records += 1;
          for (let a: string | undefined, f = true; f || a; f = false) {
            const p = await getJson(`${base}/events/${e.id}/attendees/?page_size=200${a ? `&continuation=${a}` : ''}`, auth);
            a = p.pagination.has_more_items ? p.pagination.continuation : undefined;
            records += (p.attendees as Json[]).length;
          }
        }
      }
    }
  }
  return records;
}

class CountingSink implements SyncSink {
  records = 0;
  pages = 0;
  async writePage(page: SyncPage): Promise<void> {
    this.pages += 1;
    this.records += page.events.length + page.contacts.length;
    // What the app stores with every page: the checkpoint, as JSON.
    JSON.stringify(page.checkpoint);
  }
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - started };
}

const rate = (records: number, ms: number) => Math.round(records / (ms / 1000));

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { events: { type: 'string', default: '200' }, participants: { type: 'string', default: '50' } } });
  const events = Number(values.events);
  const participants = Number(values.participants);
  const { settings, child } = await startFakes(events, participants);
  try {
    const conns = connections(settings);
    process.stdout.write(`sync throughput from the local fakes (out of process): ${events} events x ${participants} participants per platform\n`);
    process.stdout.write(`machine: ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} (figures from a loaded machine read best as the ratio to the reference)\n\n`);
    process.stdout.write(`${'platform'.padEnd(11)} ${'reference walk'.padStart(30)} ${'full runSync'.padStart(30)} ${'incremental runSync'.padStart(30)} ${'full/ref'.padStart(9)}\n`);
    for (const platform of ['hubspot', 'zoom', 'eventbrite'] as const) {
      const conn = conns[platform];
      // One warm-up pass (JIT, keep-alive connections, the fake's lazily made records).
      await referenceWalk(conn);
      const ref = await timed(() => referenceWalk(conn));
      const fullSink = new CountingSink();
      const startedAt = new Date();
      const full = await timed(() => runSync({ conn, kind: 'full', modifiedSince: null, checkpoint: null, fieldMappings: [], sink: fullSink }));
      if (full.value.kind !== 'done') throw new Error(`${platform} full sync ended ${JSON.stringify(full.value)}`);
      const incSink = new CountingSink();
      const inc = await timed(() => runSync({ conn, kind: 'incremental', modifiedSince: startedAt, checkpoint: null, fieldMappings: [], sink: incSink }));
      if (inc.value.kind !== 'done') throw new Error(`${platform} incremental sync ended ${JSON.stringify(inc.value)}`);
      const cell = (records: number, ms: number) => `${rate(records, ms)} rec/s (${records} in ${Math.round(ms)} ms)`;
      const ratio = rate(fullSink.records, full.ms) / rate(ref.value, ref.ms);
      process.stdout.write(
        `${platform.padEnd(11)} ${cell(ref.value, ref.ms).padStart(30)} ${cell(fullSink.records, full.ms).padStart(30)} ${cell(incSink.records, inc.ms).padStart(30)} ${ratio.toFixed(2).padStart(9)}\n`,
      );
    }
    process.stdout.write('\nreference walk: bare fetch + JSON.parse of the same listings (no mapping, hashing or checkpoints).\n');
    process.stdout.write('incremental: Eventbrite sends changed_since (nothing changed, so only events are written); HubSpot and Zoom have no filter and walk everything.\n');
  } finally {
    child.kill('SIGTERM');
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${(err as Error).message}\n`);
  process.exit(1);
});
