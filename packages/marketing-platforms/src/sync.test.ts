import { runSync } from './index';
import { MemorySink } from './testing/memory-sink';
import { startPlatformFake, type PlatformFake } from './testing/fakes';
import type { HttpClient, Platform, SyncOutcome, SyncTuning } from './types';

/** Short in-run backoffs so fault tests take milliseconds; everything else as in production. */
const fast: SyncTuning = { baseBackoffMs: 1, maxBackoffMs: 5 };

const sorted = (values: Iterable<string>) => [...values].sort();

describe.each<Platform>(['hubspot', 'zoom', 'eventbrite'])('runSync against the %s fake', (platform) => {
  let fake: PlatformFake;
  beforeEach(async () => {
    fake = await startPlatformFake(platform);
  });
  afterEach(async () => {
    await fake.close();
  });

  const sync = (sink: MemorySink, extra: Partial<Parameters<typeof runSync>[0]> = {}): Promise<SyncOutcome> =>
    runSync({ conn: fake.conn, kind: 'full', modifiedSince: null, checkpoint: null, fieldMappings: [], sink, tuning: fast, ...extra });

  const expectComplete = (sink: MemorySink) => {
    expect(sorted(sink.events.keys())).toEqual(sorted(fake.expectedEvents()));
    expect(sorted(sink.links)).toEqual(sorted(fake.expectedLinks()));
    expect(sink.duplicates()).toEqual([]);
  };

  it('pages events and every event\'s contacts to the end with the platform\'s largest page', async () => {
    fake.seed(45, 7);
    const sink = new MemorySink();
    expect(await sync(sink)).toEqual({ kind: 'done', completeFullPass: true, passId: expect.any(String) });
    expectComplete(sink);
    expect(sink.events.size).toBe(45);
    // Every page of one pass carries its id.
    expect(new Set(sink.pages.map((p) => p.passId)).size).toBe(1);
  });

  it('resumes from the checkpoint of every page after a kill, writing every record exactly once', async () => {
    fake.seed(5, 5);
    const reference = new MemorySink();
    expect((await sync(reference, { tuning: { ...fast, pageSize: 2 } })).kind).toBe('done');
    const pages = reference.pages.length;
    expect(pages).toBeGreaterThan(15);
    for (let killAt = 0; killAt < pages; killAt += 1) {
      const sink = new MemorySink();
      sink.failAt = killAt;
      const killed = await sync(sink, { tuning: { ...fast, pageSize: 2 } });
      expect(killed).toMatchObject({ kind: 'failed', message: expect.stringContaining(`killed at page ${killAt}`) });
      expect(sink.pages).toHaveLength(killAt);
      sink.failAt = null;
      const resumed = await sync(sink, { checkpoint: sink.lastCheckpoint, tuning: { ...fast, pageSize: 2 } });
      expect(resumed).toMatchObject({ kind: 'done', completeFullPass: true });
      // A resumed pass is the same pass: the app may detect deletes after it.
      if (killAt > 0) expect((resumed as { passId: string }).passId).toBe(sink.pages[0]!.passId);
      expectComplete(sink);
    }
  });

  it('keeps at most `concurrency` requests in flight, and writes pages in order all the same', async () => {
    fake.seed(12, 3);
    let inFlight = 0;
    let most = 0;
    const http: HttpClient = async (url, init) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      try {
        const res = await fetch(url, init);
        const text = await res.text();
        return { status: res.status, headers: res.headers, text: async () => text };
      } finally {
        inFlight -= 1;
      }
    };
    const one = new MemorySink();
    expect((await sync(one, { conn: { ...fake.conn, http }, tuning: { ...fast, concurrency: 1 } })).kind).toBe('done');
    expect(most).toBe(1);
    most = 0;
    const four = new MemorySink();
    expect((await sync(four, { conn: { ...fake.conn, http }, tuning: { ...fast, concurrency: 4 } })).kind).toBe('done');
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(4);
    expectComplete(four);
    // The same pages, in the same order, whatever the concurrency.
    const order = (sink: MemorySink) => sink.pages.map((p) => [p.model, ...p.events.map((e) => e.remoteId), ...p.contacts.map((c) => c.remoteId)].join(' '));
    expect(order(four)).toEqual(order(one));
  });

  it('skips one event\'s contact listing the platform refuses with an unexpected 4xx, and says so; the pass is not complete', async () => {
    fake.seed(4, 3);
    fake.faults.serverErrors({ count: 1, status: 400, path: fake.contactsPath, after: 1 });
    const sink = new MemorySink();
    expect(await sync(sink)).toEqual({ kind: 'done', completeFullPass: false, passId: expect.any(String), skippedListings: 1 });
    expect(sink.events.size).toBe(4);
    // The other listings were walked (which one met the 400 depends on the fetch-ahead order).
    expect(sink.links.size).toBeGreaterThan(0);
  });

  it('asks for no contact listing when only the events model is synced', async () => {
    fake.seed(3, 2);
    const sink = new MemorySink();
    expect(await sync(sink, { models: ['events'] })).toMatchObject({ kind: 'done', completeFullPass: true });
    expect(sink.events.size).toBe(3);
    expect(sink.contacts.size).toBe(0);
    const contactsPath = fake.contactsPath;
    expect(fake.requests.filter((r) => (typeof contactsPath === 'string' ? r.path.includes(contactsPath) : contactsPath.test(r.path)))).toHaveLength(0);
  });

  it('rides out a short burst of 5xx answers in-run', async () => {
    fake.seed(4, 3);
    fake.faults.serverErrors({ count: 3, status: 503, path: fake.contactsPath, after: 1 });
    const sink = new MemorySink();
    expect((await sync(sink)).kind).toBe('done');
    expectComplete(sink);
    expect(fake.requests.filter((r) => r.status === 503)).toHaveLength(3);
  });

  it('returns transient with a checkpoint when 5xx answers outlast the retries, and the checkpoint finishes the job', async () => {
    fake.seed(4, 3);
    // Enough for every request in flight (2 at once) to meet five 502s in a row.
    fake.faults.serverErrors({ count: 20, status: 502, path: fake.contactsPath, after: 2 });
    const sink = new MemorySink();
    const outcome = await sync(sink, { tuning: { ...fast, retries: 4 } });
    expect(outcome).toMatchObject({ kind: 'transient', message: expect.stringContaining('502'), checkpoint: expect.anything() });
    fake.faults.clear();
    const resumed = await sync(sink, { checkpoint: (outcome as { checkpoint: unknown }).checkpoint });
    expect(resumed.kind).toBe('done');
    expectComplete(sink);
  });

  it('retries a page whose connection was cut mid-body, and skips or repeats nothing', async () => {
    fake.seed(4, 3);
    fake.faults.cutConnection({ path: fake.contactsPath, after: 1, count: 2 });
    fake.faults.cutConnection({ path: fake.eventsPath });
    const sink = new MemorySink();
    expect((await sync(sink)).kind).toBe('done');
    expectComplete(sink);
    expect(fake.requests.filter((r) => r.fault === 'cut')).toHaveLength(3);
  });

  it('gives up on an answer slower than the timeout and asks again', async () => {
    fake.seed(3, 2);
    fake.faults.slow({ path: fake.contactsPath, after: 1, delayMs: 1500 });
    const sink = new MemorySink();
    let timedOut = 0;
    // The injected HTTP client is plain fetch, counting the requests the timeout cut off.
    const http: HttpClient = (url, init) =>
      fetch(url, init).catch((err: unknown) => {
        if (init.signal.aborted) timedOut += 1;
        throw err;
      });
    expect((await sync(sink, { conn: { ...fake.conn, timeoutMs: 300, http } })).kind).toBe('done');
    expectComplete(sink);
    expect(timedOut).toBe(1);
  });

  it('says credentials_invalid, with no checkpoint, once the platform stops taking the credentials', async () => {
    fake.seed(2, 2);
    fake.revoke();
    const outcome = await sync(new MemorySink());
    expect(outcome).toEqual({ kind: 'credentials_invalid', message: expect.any(String) });
    // The message says what happened, never the credentials themselves.
    for (const secret of Object.values(fake.conn.credentials)) expect(JSON.stringify(outcome)).not.toContain(secret);
  });

  it('returns rate_limited promptly on a 429 storm, then resumes from its checkpoint', async () => {
    fake.seed(3, 3);
    fake.faults.rateLimit({ count: 20, path: fake.contactsPath, after: 1 });
    const sink = new MemorySink();
    const waits: number[] = [];
    const sleep = async (ms: number) => void waits.push(ms);
    const outcome = await sync(sink, { tuning: { ...fast, sleep, maxInlineWaitMs: 0 } });
    expect(outcome).toMatchObject({ kind: 'rate_limited', retryAt: expect.any(Date), checkpoint: expect.anything() });
    // Promptly: no wait for the window in-run, the caller reschedules at retryAt; and no more requests
    // once the platform said stop than were already in flight (2).
    expect(waits).toEqual([]);
    expect(fake.requests.filter((r) => r.status === 429).length).toBeLessThanOrEqual(2);
    expect((outcome as { retryAt: Date }).retryAt.getTime()).toBeGreaterThan(Date.now());
    fake.faults.clear();
    const resumed = await sync(sink, { checkpoint: (outcome as { checkpoint: unknown }).checkpoint });
    expect(resumed.kind).toBe('done');
    expectComplete(sink);
  });

  it('stops on abort and hands back a checkpoint to go on from', async () => {
    fake.seed(6, 3);
    const controller = new AbortController();
    const sink = new MemorySink();
    const original = sink.writePage.bind(sink);
    sink.writePage = async (page) => {
      await original(page);
      if (sink.pages.length === 3) controller.abort();
    };
    const outcome = await sync(sink, { signal: controller.signal });
    expect(outcome).toMatchObject({ kind: 'transient', message: expect.stringContaining('aborted'), checkpoint: expect.anything() });
    expect(sink.pages).toHaveLength(3);
    const fresh = Object.assign(new MemorySink(), {});
    for (const p of sink.pages) fresh.apply(p);
    expect((await sync(fresh, { checkpoint: (outcome as { checkpoint: unknown }).checkpoint })).kind).toBe('done');
    expectComplete(fresh);
  });
});
