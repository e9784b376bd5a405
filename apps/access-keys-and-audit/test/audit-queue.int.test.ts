import { randomUUID } from 'node:crypto';
import { createLogger, createRedis, type RedisClient } from '@patchbay/service-kit';
import { QUEUE_NAMES, type AuditEventJob } from '@patchbay/queues';
import { Queue, type Worker } from 'bullmq';
import request from 'supertest';
import { startAuditConsumer } from '../src/domain/audit-consumer';
import { TEST_REDIS_URL } from './env';
import { bearer, newOrganization, startHarness, waitFor, type Harness } from './harness';

// A private BullMQ prefix keeps this run's jobs apart from any other consumer on the same Redis.
const prefix = `test-audit-${process.pid}`;
let h: Harness;
let connection: RedisClient;
let consumer: Worker;
let producer: Queue;
let producerConnection: RedisClient;

beforeAll(async () => {
  h = await startHarness();
  connection = createRedis(TEST_REDIS_URL, { forQueue: true });
  consumer = startAuditConsumer({ db: h.db, connection, logger: createLogger('test', 'silent'), prefix });
  producerConnection = createRedis(TEST_REDIS_URL, { forQueue: true });
  producer = new Queue(QUEUE_NAMES.auditEvents, { connection: producerConnection, prefix });
});
afterAll(async () => {
  await consumer.close();
  await producer.obliterate({ force: true });
  await producer.close();
  producerConnection.disconnect();
  connection.disconnect();
  await h.close();
});

function event(organizationId: string, overrides: Partial<AuditEventJob> = {}): AuditEventJob {
  return {
    event_id: randomUUID(),
    organization_id: organizationId,
    environment: 'production',
    event_type: 'registered_user.created',
    occurred_at: new Date().toISOString(),
    actor: { type: 'access_key', access_key_id: randomUUID() },
    user_id: randomUUID(),
    resource_type: 'registered_user',
    resource_id: randomUUID(),
    source_service: 'connector-registry',
    details: { origin_user_id: 'user-42' },
    ...overrides,
  };
}

async function auditCount(key: string, query: string): Promise<number> {
  const res = await request(h.app).get(`/api/v1/audit-log/${query}`).set(bearer(key));
  return (res.body as { count: number }).count;
}

describe('audit events from other services over the queue', () => {
  it('stores an event sent by another service, visible in the audit log of its environment', async () => {
    const org = await newOrganization(h.db);
    const sent = event(org.organization_id);
    await producer.add('audit', sent, { jobId: sent.event_id });
    await waitFor(async () => (await auditCount(org.master_key!, `?user_id=${sent.user_id}`)) === 1);
    const res = await request(h.app).get(`/api/v1/audit-log/?user_id=${sent.user_id}`).set(bearer(org.master_key!));
    expect(res.body.results[0]).toMatchObject({
      id: sent.event_id,
      event_type: 'registered_user.created',
      actor_type: 'access_key',
      actor_key_id: sent.actor.access_key_id,
      user_id: sent.user_id,
      source_service: 'connector-registry',
      details: { origin_user_id: 'user-42' },
    });
    expect(await auditCount(org.test_key, `?user_id=${sent.user_id}`)).toBe(0);
  });

  it('stores a retried event once (idempotent on the event id)', async () => {
    const org = await newOrganization(h.db);
    const sent = event(org.organization_id);
    // The producer retried after losing the acknowledgement: two jobs, one event.
    await producer.add('audit', sent, { jobId: randomUUID() });
    await producer.add('audit', sent, { jobId: randomUUID() });
    await waitFor(async () => (await producer.getCompletedCount()) >= 2 && (await auditCount(org.master_key!, `?user_id=${sent.user_id}`)) >= 1);
    await waitFor(async () => (await producer.getJobCounts('active', 'waiting')).waiting === 0);
    expect(await auditCount(org.master_key!, `?user_id=${sent.user_id}`)).toBe(1);
  });

  it('does not retry a malformed event and stores nothing of it', async () => {
    const org = await newOrganization(h.db);
    const bad = event(org.organization_id, { event_type: 'Not A Type' });
    const job = await producer.add('audit', bad, { jobId: bad.event_id, attempts: 5 });
    await waitFor(async () => (await job.getState()) === 'failed');
    const failed = await producer.getJob(job.id!);
    expect(failed?.attemptsMade).toBe(1);
    expect(failed?.failedReason).toContain('event_type must look like resource.action');
    expect(await h.db.auditEvent.count({ where: { id: bad.event_id } })).toBe(0);
  });
});
