import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { createLogger } from '@patchbay/service-kit';
import { PrivateRedis } from '@patchbay/testing-redis';
import type { Worker } from 'bullmq';
import Redis from 'ioredis';
import { createConsumer, type DeliveryInfo } from '../src/consumer';
import type { QueueLogger } from '../src/logger';
import { QUEUE_NAMES } from '../src/names';
import { OutboxRelay, addToOutbox } from '../src/outbox';
import type { AuditEventJob } from '../src/payloads';
import { QueueSet } from '../src/queue-set';
import { TestQueues, auditEvent, createTestDatabase, memoryLogger, redisConnection, uniquePrefix, waitFor, type TestDatabase } from './harness';

const AUDIT = QUEUE_NAMES.auditEvents;

describe('consumer', () => {
  let db: TestDatabase;
  let queues: TestQueues;
  let producerQueues: QueueSet;
  let workers: Worker[];

  beforeAll(async () => {
    db = await createTestDatabase('consumer');
  });
  afterAll(async () => {
    await db.drop();
  });
  beforeEach(() => {
    queues = new TestQueues(uniquePrefix('consumer'));
    producerQueues = new QueueSet({ connection: redisConnection(), prefix: queues.prefix });
    workers = [];
  });
  afterEach(async () => {
    for (const worker of workers) await worker.close();
    await producerQueues.close();
    queues.open(AUDIT);
    await queues.cleanup();
  });

  /** The handler a consumer like access-keys-and-audit writes: one row per event_id. */
  async function storeOnce(event: AuditEventJob): Promise<void> {
    await db.prisma.$executeRawUnsafe(
      `INSERT INTO "stored_audit_events" ("event_id", "event_type") VALUES ($1::uuid, $2) ON CONFLICT ("event_id") DO NOTHING`,
      event.event_id,
      event.event_type,
    );
  }

  function relay(logger: QueueLogger = memoryLogger(), jobOptions?: ConstructorParameters<typeof OutboxRelay>[0]['jobOptions']): OutboxRelay {
    return new OutboxRelay({ executor: db.prisma, queues: (name) => producerQueues.get(name), logger, jobOptions });
  }

  it('stores an event delivered twice once, because the handler is idempotent on event_id', async () => {
    const event = auditEvent();
    // The producer sent the same event twice (say it retried after an ambiguous failure): two jobs.
    await addToOutbox(db.prisma, { queue: AUDIT, jobId: randomUUID(), payload: event });
    await addToOutbox(db.prisma, { queue: AUDIT, jobId: randomUUID(), payload: event });
    await relay().kick();
    const deliveries: AuditEventJob[] = [];
    workers.push(
      createConsumer({
        queue: AUDIT,
        connection: redisConnection(),
        prefix: queues.prefix,
        logger: memoryLogger(),
        handler: async (payload) => {
          deliveries.push(payload);
          await storeOnce(payload);
        },
      }),
    );

    const counter = queues.open(AUDIT);
    await waitFor(async () => (await counter.getJobCounts('completed')).completed === 2, 'both jobs to complete');

    expect(deliveries).toEqual([event, event]);
    expect(await db.prisma.storedAuditEvent.findMany({ where: { eventId: event.event_id } })).toEqual([
      { eventId: event.event_id, eventType: 'registered_user.created' },
    ]);
  });

  it('retries a failing job and logs the failure without the payload', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const logger: QueueLogger = createLogger('queues-test', 'info', destination);
    const event = auditEvent({ details: { origin_user_id: 'payload-marker-91c2' } });
    await addToOutbox(db.prisma, { queue: AUDIT, payload: event });
    await relay(memoryLogger(), { attempts: 3, backoff: { type: 'fixed', delay: 10 } }).kick();
    const seen: DeliveryInfo[] = [];
    workers.push(
      createConsumer({
        queue: AUDIT,
        connection: redisConnection(),
        prefix: queues.prefix,
        logger,
        handler: async (payload, delivery) => {
          seen.push(delivery);
          if (delivery.attempt === 1) throw new Error('audit database unavailable');
          await storeOnce(payload);
        },
      }),
    );

    const counter = queues.open(AUDIT);
    await waitFor(async () => (await counter.getJobCounts('completed')).completed === 1, 'the retried job to complete');

    expect(seen).toEqual([
      { jobId: event.event_id, jobName: AUDIT, attempt: 1, maxAttempts: 3 },
      { jobId: event.event_id, jobName: AUDIT, attempt: 2, maxAttempts: 3 },
    ]);
    expect(await db.prisma.storedAuditEvent.count({ where: { eventId: event.event_id } })).toBe(1);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'warn',
        msg: 'job failed; it will be retried',
        queue: AUDIT,
        job_id: event.event_id,
        event_id: event.event_id,
        attempts_made: 1,
        max_attempts: 3,
        error: 'Error: audit database unavailable',
      }),
    ]);
    expect(JSON.stringify(lines)).not.toContain('payload-marker-91c2');
  });

  it('close waits for the job being processed', async () => {
    const event = auditEvent();
    await addToOutbox(db.prisma, { queue: AUDIT, payload: event });
    await relay().kick();
    let release: () => void = () => undefined;
    const started = new Promise<void>((resolveStarted) => {
      workers.push(
        createConsumer({
          queue: AUDIT,
          connection: redisConnection(),
          prefix: queues.prefix,
          logger: memoryLogger(),
          handler: async (payload) => {
            resolveStarted();
            await new Promise<void>((resolve) => (release = resolve));
            await storeOnce(payload);
          },
        }),
      );
    });
    await started;

    const closing = workers[0]!.close();
    release();
    await closing;

    expect(await db.prisma.storedAuditEvent.count({ where: { eventId: event.event_id } })).toBe(1);
  });

  it('close ends when the Redis the worker waits on has died, instead of waiting for a reconnect that never comes', async () => {
    // A private redis-server: this test kills it, which the shared one must not suffer.
    const server = new PrivateRedis();
    await server.start();
    // One connection the service opens and hands to the worker, as the services do (createRedis forQueue).
    const connection = new Redis({ path: server.socket, maxRetriesPerRequest: null });
    try {
      const worker = createConsumer({ queue: AUDIT, connection, prefix: queues.prefix, logger: memoryLogger(), handler: async () => undefined });
      await worker.waitUntilReady();
      // The worker is now blocked in BZPOPMIN on the server, waiting for a job.
      await new Promise((resolve) => setTimeout(resolve, 500));
      await server.kill();
      await new Promise((resolve) => setTimeout(resolve, 1_000));

      let bound: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([worker.close().then(() => 'closed'), new Promise((resolve) => (bound = setTimeout(resolve, 15_000, 'still closing after 15 s')))]);
      clearTimeout(bound);

      expect(outcome).toBe('closed');
    } finally {
      connection.disconnect();
      await server.close();
    }
  }, 30_000);
});
