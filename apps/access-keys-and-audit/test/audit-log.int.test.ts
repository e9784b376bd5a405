import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { storeDeliveredAuditEvent } from '../src/domain/audit-log';
import { bearer, createKey, newOrganization, startHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

async function auditLog(key: string, query = '') {
  const res = await request(h.app).get(`/api/v1/audit-log/${query}`).set(bearer(key));
  expect(res.status).toBe(200);
  return res.body as { count: number; results: Array<Record<string, unknown>> };
}

async function insertEvent(organizationId: string, createdAt: string, extra: Partial<Parameters<typeof storeDeliveredAuditEvent>[1]> = {}) {
  await storeDeliveredAuditEvent(h.db, {
    id: randomUUID(),
    organizationId,
    environment: 'production',
    eventType: 'tool_pack.created',
    actorType: 'service',
    sourceService: 'connector-registry',
    createdAt: new Date(createdAt),
    ...extra,
  });
}

describe('audit log', () => {
  it('records every key creation, regeneration and revocation; when one key acts on another the entry names both', async () => {
    const org = await newOrganization(h.db);
    const key = await createKey(h.app, org.master_key!, { name: 'audited' });
    await request(h.app).post(`/api/v1/access-keys/${key.id}/regenerate/`).set(bearer(org.master_key!)).expect(200);
    await request(h.app).post(`/api/v1/access-keys/${key.id}/revoke/`).set(bearer(org.master_key!)).expect(204);
    const log = await auditLog(org.master_key!, '?page_size=10');
    const keyEvents = log.results.filter((e) => e.target_key_id === key.id);
    expect(keyEvents.map((e) => e.event_type)).toEqual(['access_key.revoked', 'access_key.regenerated', 'access_key.created']);
    for (const event of keyEvents) {
      expect(event).toMatchObject({ actor_type: 'access_key', actor_key_id: org.master_key_id, target_key_id: key.id, environment: 'production', source_service: 'access-keys-and-audit' });
    }
    expect(JSON.stringify(log)).not.toContain(key.key);
  });

  it('lists the most recent first, including the organization\'s creation by the admin CLI', async () => {
    const org = await newOrganization(h.db);
    const log = await auditLog(org.master_key!);
    const times = log.results.map((e) => Date.parse(e.created_at as string));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(log.results.map((e) => e.event_type)).toContain('organization.created');
  });

  it('the test environment has its own log', async () => {
    const org = await newOrganization(h.db);
    const testKey = await createKey(h.app, org.test_key, { name: 'sandbox' });
    const testLog = await auditLog(org.test_key);
    expect(testLog.results.every((e) => e.environment === 'test')).toBe(true);
    expect(testLog.results.some((e) => e.target_key_id === testKey.id)).toBe(true);
    const prodLog = await auditLog(org.master_key!);
    expect(prodLog.results.some((e) => e.target_key_id === testKey.id)).toBe(false);
  });

  it('filters by created_after and created_before, both inclusive', async () => {
    const org = await newOrganization(h.db);
    const now = Date.now();
    const t = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString();
    await insertEvent(org.organization_id, t(30));
    await insertEvent(org.organization_id, t(20));
    await insertEvent(org.organization_id, t(10));
    const log = await auditLog(org.master_key!, `?event_type=tool_pack.created&created_after=${encodeURIComponent(t(30))}&created_before=${encodeURIComponent(t(20))}`);
    expect(log.results.map((e) => e.created_at)).toEqual([t(20), t(30)]);
  });

  it('filters by event_type and user_id', async () => {
    const org = await newOrganization(h.db);
    const userId = randomUUID();
    const recent = new Date(Date.now() - 60_000).toISOString();
    await insertEvent(org.organization_id, recent, { eventType: 'registered_user.created', userId });
    await insertEvent(org.organization_id, recent, { eventType: 'registered_user.created', userId: randomUUID() });
    const byUser = await auditLog(org.master_key!, `?user_id=${userId}`);
    expect(byUser.results.map((e) => e.user_id)).toEqual([userId]);
    const byType = await auditLog(org.master_key!, '?event_type=registered_user.created');
    expect(byType.count).toBe(2);
  });

  it('covers 90 days by default; older events are returned when asked for explicitly', async () => {
    const org = await newOrganization(h.db);
    const old = new Date(Date.now() - 120 * 86_400_000).toISOString();
    await insertEvent(org.organization_id, old, { eventType: 'connector.registered' });
    expect((await auditLog(org.master_key!, '?event_type=connector.registered')).count).toBe(0);
    const explicit = await auditLog(org.master_key!, `?event_type=connector.registered&created_after=${encodeURIComponent(new Date(Date.now() - 365 * 86_400_000).toISOString())}`);
    expect(explicit.results.map((e) => e.created_at)).toEqual([old]);
  });

  it('rejects malformed filters with a 400 naming the field', async () => {
    const org = await newOrganization(h.db);
    const res = await request(h.app).get('/api/v1/audit-log/?created_after=yesterday&user_id=42').set(bearer(org.master_key!));
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['query.created_after', 'query.user_id']);
  });

  it('stores an event delivered twice only once (idempotent on the event id)', async () => {
    const org = await newOrganization(h.db);
    const id = randomUUID();
    // The time is the event's own (the job's occurred_at), the same on every delivery.
    const event = { id, organizationId: org.organization_id, environment: 'production' as const, eventType: 'tool_pack.deleted', actorType: 'service' as const, sourceService: 'connector-registry', createdAt: new Date() };
    expect(await storeDeliveredAuditEvent(h.db, event)).toBe(true);
    expect(await storeDeliveredAuditEvent(h.db, event)).toBe(false);
    expect((await auditLog(org.master_key!, '?event_type=tool_pack.deleted')).count).toBe(1);
  });

  it('never shows another organization\'s events', async () => {
    const mine = await newOrganization(h.db);
    const theirs = await newOrganization(h.db);
    const log = await auditLog(mine.master_key!, '?page_size=100');
    expect(log.results.some((e) => e.resource_id === theirs.organization_id)).toBe(false);
  });

  it('a failed change leaves no audit entry', async () => {
    const org = await newOrganization(h.db);
    const before = (await auditLog(org.master_key!)).count;
    await request(h.app).post(`/api/v1/access-keys/${org.master_key_id}/revoke/`).set(bearer(org.master_key!)).expect(400);
    expect((await auditLog(org.master_key!)).count).toBe(before);
  });
});
