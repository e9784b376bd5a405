import { createServer } from 'node:net';
import { KeyVerifier } from '@patchbay/auth';
import { createLogger, createRedis, type RedisClient } from '@patchbay/service-kit';
import request from 'supertest';
import { createApp } from '../src/app';
import { createPrisma } from '../src/db';
import { loadPrincipalByHash } from '../src/domain/access-keys';
import { TEST_SERVICE_TOKEN } from './env';
import { bearer, createKey, newOrganization, startHarness, type Harness } from './harness';

/** A port nothing listens on: taken from the OS, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 0;
}

let h: Harness;
let deadRedis: RedisClient;

beforeAll(async () => {
  h = await startHarness();
  deadRedis = createRedis(`redis://127.0.0.1:${await closedPort()}`, { maxRetriesPerRequest: 1, retryStrategy: () => 200 });
  deadRedis.on('error', () => undefined);
});
afterAll(async () => {
  deadRedis.disconnect();
  await h.close();
});

describe('while Redis is down', () => {
  it('revoke answers 204 because the revoke committed: the key is revoked and its audit event written', async () => {
    const org = await newOrganization(h.db);
    const target = await createKey(h.app, org.master_key!, { name: 'to revoke' });
    const verifier = new KeyVerifier({ loader: (hash) => loadPrincipalByHash(h.db, hash) });
    const { app } = createApp({ db: h.db, redis: deadRedis, logger: createLogger('outage', 'silent'), serviceToken: TEST_SERVICE_TOKEN, verifier });

    const res = await request(app).post(`/api/v1/access-keys/${target.id}/revoke/`).set(bearer(org.master_key!));

    expect(res.status).toBe(204);
    const row = await h.db.accessKey.findUniqueOrThrow({ where: { id: target.id } });
    expect(row.revokedAt).not.toBeNull();
    const events = await h.db.auditEvent.findMany({ where: { organizationId: org.organization_id, eventType: 'access_key.revoked', targetKeyId: target.id } });
    expect(events).toHaveLength(1);
    // The revoked key is refused at once by this process, whose cache the revoke invalidated directly.
    expect((await request(app).get('/api/v1/access-keys/').set(bearer(target.key))).status).toBe(401);
  });
});

describe('while PostgreSQL is down', () => {
  it('a management request answers 503 service_unavailable with Retry-After, not 500', async () => {
    const port = await closedPort();
    const deadDb = createPrisma(`postgresql://postgres@127.0.0.1:${port}/nowhere`, 1);
    const { app } = createApp({ db: deadDb, redis: h.redis, logger: createLogger('outage', 'silent'), serviceToken: TEST_SERVICE_TOKEN });
    const org = await newOrganization(h.db);

    const res = await request(app).get('/api/v1/access-keys/').set(bearer(org.master_key!));

    expect(res.status).toBe(503);
    expect(res.body.code).toBe('service_unavailable');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    await deadDb.$disconnect();
  });
});

describe('concurrent changes to keys', () => {
  it('revokes and regenerates running at once never deadlock into a 5xx (found by the fuzzer)', async () => {
    const org = await newOrganization(h.db);
    const keys = await Promise.all(Array.from({ length: 6 }, (_, i) => createKey(h.app, org.master_key!, { name: `k${i}` })));
    const statuses = await Promise.all(
      keys.flatMap((k) => [
        request(h.app).post(`/api/v1/access-keys/${k.id}/regenerate/`).set(bearer(org.master_key!)).then((r) => r.status),
        request(h.app).post(`/api/v1/access-keys/${k.id}/revoke/`).set(bearer(org.master_key!)).then((r) => r.status),
      ]),
    );
    expect(statuses.every((s) => s < 500)).toBe(true);
    expect(statuses.filter((s) => s === 204)).toHaveLength(6);
  });
});
