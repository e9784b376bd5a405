import { randomUUID } from 'node:crypto';
import type { FetchedContact, SyncPage } from '@patchbay/marketing-platforms';
import { PostgresSyncSink, RunSupersededError } from '../src/sync/sync-sink';
import { linkHubspot, startHarness, type Harness } from './harness';

let h: Harness;
let accountId: string;

beforeAll(async () => {
  h = await startHarness();
  const org = await h.newOrganization();
  const portal = h.hubspot.createPortal();
  accountId = (await linkHubspot(h, org.master_key, undefined, portal.token)).id;
});
afterAll(async () => h.close());

/** A run of its own for each test (the initial sync never runs here: no worker is started). */
async function newRun(): Promise<string> {
  const runId = randomUUID();
  await h.db.syncRun.update({ where: { linkedAccountId: accountId }, data: { runId, pagesWritten: 0, checkpoint: { step: 0 } } });
  return runId;
}

function contact(remoteId: string, hash: string): FetchedContact {
  const fields = { first_name: remoteId, last_name: null, email: `${remoteId}@example.com`, phone: null, state: null, country: null, postal_code: null, remote_created_at: null, remote_updated_at: null };
  return { remoteId, fields, remoteData: [{ path: '/crm/v3/objects/contacts/batch/read', data: { id: remoteId, hash } }], fieldMappings: {}, hash };
}

const page = (step: number, contacts: FetchedContact[]): SyncPage => ({ model: 'contacts', events: [], contacts, links: [], checkpoint: { step }, passId: 'p1' });

async function contactRows(prefix: string) {
  return h.db.contact.findMany({ where: { linkedAccountId: accountId, remoteId: { startsWith: prefix } }, orderBy: { remoteId: 'asc' } });
}

describe('the sync sink', () => {
  it('writes the pages handed over during a write together, in one statement with the checkpoint of the last', async () => {
    const runId = await newRun();
    const sink = new PostgresSyncSink(h.db, { linkedAccountId: accountId, runId });
    await sink.writePage(page(1, [contact('batch-a', 'h1')]));
    // The first write is still running: these two wait, and go out together next.
    await sink.writePage(page(2, [contact('batch-b', 'h1')]));
    await sink.writePage(page(3, [contact('batch-c', 'h1')]));
    await sink.flush();
    expect(sink.statements).toBe(2);
    expect(sink.pages).toBe(3);
    const run = await h.db.syncRun.findUniqueOrThrow({ where: { linkedAccountId: accountId } });
    expect(run.checkpoint).toEqual({ step: 3 });
    expect(run.pagesWritten).toBe(3);
    expect((await contactRows('batch-')).map((c) => [c.remoteId, c.runWrites])).toEqual([['batch-a', 1], ['batch-b', 1], ['batch-c', 1]]);
  });

  it('a record fetched again unchanged keeps its modified_at; a full pass marks it seen, an incremental one leaves its row alone', async () => {
    const first = await newRun();
    const full = new PostgresSyncSink(h.db, { linkedAccountId: accountId, runId: first });
    await full.writePage(page(1, [contact('same-a', 'h1'), contact('same-b', 'h1')]));
    await full.flush();
    const [a0, b0] = await contactRows('same-');

    const second = await newRun();
    const again = new PostgresSyncSink(h.db, { linkedAccountId: accountId, runId: second }, undefined, { touchUnchanged: true });
    await again.writePage(page(1, [contact('same-a', 'h1'), contact('same-b', 'h2')]));
    await again.flush();
    const [a1, b1] = await contactRows('same-');
    expect(a1?.modifiedAt).toEqual(a0?.modifiedAt);
    expect(a1?.lastRunId).toBe(second);
    expect(b1?.modifiedAt.getTime()).toBeGreaterThan(b0?.modifiedAt.getTime() ?? Infinity);
    expect(b1?.hash).toBe('h2');

    const third = await newRun();
    const incremental = new PostgresSyncSink(h.db, { linkedAccountId: accountId, runId: third }, undefined, { touchUnchanged: false });
    await incremental.writePage(page(1, [contact('same-a', 'h1'), contact('same-b', 'h2')]));
    await incremental.flush();
    const [a2, b2] = await contactRows('same-');
    expect(a2?.lastRunId).toBe(second);
    expect(b2?.lastRunId).toBe(second);
    expect(b2?.modifiedAt).toEqual(b1?.modifiedAt);
    expect((await h.db.syncRun.findUniqueOrThrow({ where: { linkedAccountId: accountId } })).checkpoint).toEqual({ step: 1 });
  });

  it('a superseded run writes nothing of its queued pages, and the next writePage and flush say so', async () => {
    const runId = await newRun();
    const sink = new PostgresSyncSink(h.db, { linkedAccountId: accountId, runId });
    await sink.writePage(page(1, [contact('fenced-a', 'h1')]));
    await sink.flush();
    // Another run took over (its worker resumed the account): this run's pages are refused.
    await h.db.syncRun.update({ where: { linkedAccountId: accountId }, data: { runId: randomUUID() } });
    await sink.writePage(page(2, [contact('fenced-b', 'h1')]));
    await sink.writePage(page(3, [contact('fenced-c', 'h1')])).catch(() => undefined);
    await expect(sink.flush()).rejects.toBeInstanceOf(RunSupersededError);
    await expect(sink.writePage(page(4, [contact('fenced-d', 'h1')]))).rejects.toBeInstanceOf(RunSupersededError);
    expect((await contactRows('fenced-')).map((c) => c.remoteId)).toEqual(['fenced-a']);
    expect((await h.db.syncRun.findUniqueOrThrow({ where: { linkedAccountId: accountId } })).checkpoint).toEqual({ step: 1 });
  });
});
