import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { QUEUE_NAMES } from '../src/names';
import { CHANNEL_PUBLISHER_OPTIONS, OutboxRelay, addMessageToOutbox, addToOutbox, type RelayQueue } from '../src/outbox';
import { TEST_REDIS_URL, TestQueues, auditEvent, createTestDatabase, memoryLogger, uniquePrefix, waitFor, type TestDatabase } from './harness';

const AUDIT = QUEUE_NAMES.auditEvents;

describe('transactional outbox', () => {
  let db: TestDatabase;
  let queues: TestQueues;

  beforeAll(async () => {
    db = await createTestDatabase('outbox');
  });
  afterAll(async () => {
    await db.drop();
  });
  beforeEach(async () => {
    queues = new TestQueues(uniquePrefix('outbox'));
    await db.prisma.eventOutbox.deleteMany();
  });
  afterEach(async () => {
    await queues.cleanup();
  });

  it('never delivers an event added in a transaction that rolls back, and delivers a committed one once', async () => {
    const queue = queues.open(AUDIT);
    const relay = new OutboxRelay({ executor: db.prisma, queues: { [AUDIT]: queue }, logger: memoryLogger() });
    const rolledBack = auditEvent();
    const committed = auditEvent();

    await expect(
      db.prisma.$transaction(async (tx) => {
        await addToOutbox(tx, { queue: AUDIT, payload: rolledBack });
        throw new Error('the business change failed');
      }),
    ).rejects.toThrow('the business change failed');
    await db.prisma.$transaction(async (tx) => {
      await addToOutbox(tx, { queue: AUDIT, jobName: committed.event_type, payload: committed });
    });

    await relay.kick();
    await relay.kick();

    expect(await queue.getJob(rolledBack.event_id)).toBeUndefined();
    const job = await queue.getJob(committed.event_id);
    expect(job?.name).toBe('registered_user.created');
    expect(job?.data).toEqual(committed);
    expect(job?.opts.attempts).toBe(10);
    expect(await queue.getJobCounts('waiting')).toEqual({ waiting: 1 });
    expect(await db.prisma.eventOutbox.count()).toBe(0);
  });

  it('keeps an event while Redis is unreachable and delivers it once Redis answers, losing nothing', async () => {
    // Nothing listens on 6399. Failing fast and never reconnecting keeps the test quick; a
    // connection we own, already ended, leaves no ioredis timer behind when the queue closes.
    const deadRedis = new Redis({ host: '127.0.0.1', port: 6399, lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: null, retryStrategy: () => null });
    deadRedis.on('error', () => undefined);
    const unreachable = new Queue(AUDIT, { prefix: queues.prefix, connection: deadRedis });
    unreachable.on('error', () => undefined);
    const reachable = queues.open(AUDIT);
    let current: RelayQueue = unreachable;
    const logger = memoryLogger();
    const relay = new OutboxRelay({
      executor: db.prisma,
      queues: () => current,
      logger,
      retryBaseMs: 10,
      enqueueTimeoutMs: 3000,
      leaseMs: 10_000,
    });
    const event = auditEvent({ details: { note: 'payload-marker-7f3a' } });
    await db.prisma.$transaction((tx) => addToOutbox(tx, { queue: AUDIT, payload: event }));

    await relay.kick();

    const kept = await db.prisma.eventOutbox.findUniqueOrThrow({ where: { id: event.event_id } });
    expect(kept.attempts).toBe(1);
    expect(kept.lastError).toMatch(/Connection is closed|ECONNREFUSED/);
    expect(kept.lastError).not.toContain('payload-marker-7f3a');
    expect(kept.payload).toEqual(event);
    expect(kept.nextAttemptAt.getTime()).toBeGreaterThan(kept.createdAt.getTime());
    const warning = logger.lines.find((l) => l.level === 'warn');
    expect(warning?.fields).toMatchObject({ outbox_id: event.event_id, queue: AUDIT, attempts: 1 });
    expect(JSON.stringify(logger.lines)).not.toContain('payload-marker-7f3a');

    current = reachable;
    await waitFor(async () => {
      await relay.kick();
      return (await db.prisma.eventOutbox.count()) === 0;
    }, 'the kept event to be delivered');

    expect((await reachable.getJob(event.event_id))?.data).toEqual(event);
    await relay.stop();
    await unreachable.close();
    expect(deadRedis.status).toBe('end');
  });

  it('lets two relays drain one outbox concurrently, enqueuing each event exactly once', async () => {
    const events = Array.from({ length: 40 }, () => auditEvent());
    await db.prisma.$transaction(async (tx) => {
      for (const payload of events) await addToOutbox(tx, { queue: AUDIT, payload });
    });
    const added: string[] = [];
    const relays = [queues.open(AUDIT), queues.open(AUDIT)].map((queue) => {
      const add = queue.add.bind(queue);
      // Watch the real Queue's adds: BullMQ would hide a double add behind its jobId dedupe.
      jest.spyOn(queue, 'add').mockImplementation((name, data, opts) => {
        added.push(opts?.jobId ?? '');
        return add(name, data, opts);
      });
      return new OutboxRelay({ executor: db.prisma, queues: () => queue, logger: memoryLogger(), batchSize: 3 });
    });

    await Promise.all(relays.map((relay) => relay.kick()));

    expect(added).toHaveLength(40);
    expect(new Set(added)).toEqual(new Set(events.map((e) => e.event_id)));
    const counter = queues.open(AUDIT);
    expect(await counter.getJobCounts('waiting')).toEqual({ waiting: 40 });
    expect(await db.prisma.eventOutbox.count()).toBe(0);
  });

  it('delivers by polling when nobody kicks, and stop waits for the running drain', async () => {
    const queue = queues.open(AUDIT);
    const relay = new OutboxRelay({ executor: db.prisma, queues: { [AUDIT]: queue }, logger: memoryLogger(), pollIntervalMs: 20 });
    relay.start();
    const event = auditEvent();
    await db.prisma.$transaction((tx) => addToOutbox(tx, { queue: AUDIT, payload: event }));

    await waitFor(async () => (await queue.getJob(event.event_id)) !== undefined, 'the polled event');
    await relay.stop();

    const afterStop = auditEvent();
    await addToOutbox(db.prisma, { queue: AUDIT, payload: afterStop });
    await relay.kick();
    expect(await db.prisma.eventOutbox.count()).toBe(1);
  });

  it('keeps a row whose queue has no BullMQ queue configured instead of dropping it', async () => {
    const relay = new OutboxRelay({ executor: db.prisma, queues: {}, logger: memoryLogger() });
    const event = auditEvent();
    await addToOutbox(db.prisma, { queue: AUDIT, payload: event });

    await relay.kick();

    const kept = await db.prisma.eventOutbox.findUniqueOrThrow({ where: { id: event.event_id } });
    expect(kept).toMatchObject({ attempts: 1, lastError: `Error: no BullMQ queue configured for "${AUDIT}"` });
  });

  it('stores an event id once in the outbox however often it is added', async () => {
    const event = auditEvent();
    await addToOutbox(db.prisma, { queue: AUDIT, payload: event });
    await addToOutbox(db.prisma, { queue: AUDIT, payload: event });
    expect(await db.prisma.eventOutbox.count()).toBe(1);
  });

  it('refuses a job id that is not a uuid before touching the database', async () => {
    await expect(addToOutbox(db.prisma, { queue: AUDIT, payload: auditEvent({ event_id: 'audit:1' }) })).rejects.toThrow(/must be a uuid/);
    expect(await db.prisma.eventOutbox.count()).toBe(0);
  });
});

describe('pub/sub messages through the outbox', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase('outbox_channels');
  });
  afterAll(async () => {
    await db.drop();
  });

  it('keeps a message Redis did not take and publishes it the moment the publisher is ready again; a relay without a publisher leaves it alone', async () => {
    const channel = `patchbay-test:outbox:${process.pid}:${Date.now()}`;
    const subscriber = new Redis(TEST_REDIS_URL);
    const received: unknown[] = [];
    subscriber.on('message', (c: string, raw: string) => {
      if (c === channel) received.push(JSON.parse(raw));
    });
    await subscriber.subscribe(channel);
    const publisher = new Redis(TEST_REDIS_URL, CHANNEL_PUBLISHER_OPTIONS);
    await waitFor(() => publisher.status === 'ready', 'the publisher to connect');
    // Redis gone for the publisher only: its publishes fail while the subscriber stays connected.
    publisher.disconnect();
    const relay = new OutboxRelay({ executor: db.prisma, queues: {}, publisher, logger: memoryLogger(), pollIntervalMs: 60_000 });
    const bystander = new OutboxRelay({ executor: db.prisma, queues: {}, logger: memoryLogger() });
    relay.start();
    try {
      await db.prisma.$transaction(async (tx) => {
        await addMessageToOutbox(tx, { channel, payload: { keyHash: 'abc' } });
      });
      await relay.kick();
      await bystander.kick();
      expect(received).toEqual([]);
      const kept = await db.prisma.eventOutbox.findMany();
      expect(kept).toHaveLength(1);
      expect(kept[0]?.attempts).toBe(1);

      await publisher.connect();
      await waitFor(() => received.length > 0, 'the kept message to be published');
      expect(received).toEqual([{ keyHash: 'abc' }]);
      await waitFor(async () => (await db.prisma.eventOutbox.count()) === 0, 'the published row to be deleted');
    } finally {
      await relay.stop();
      publisher.disconnect();
      subscriber.disconnect();
    }
  });
});
