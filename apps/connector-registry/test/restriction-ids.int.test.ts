import type { Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { startAccessKeysService, type RunningAccessKeys } from '@patchbay/testing';
import { builtinConnectorId } from '../src/domain/ids';
import { bearer, request, startHarness, type Harness } from './harness';

// access-keys-and-audit checks a new key's restriction ids against this service's internal route.
let h: Harness;
let server: Server;
let accessKeys: RunningAccessKeys;
beforeAll(async () => {
  h = await startHarness();
  server = await new Promise<Server>((resolve) => {
    const s = h.app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const registryUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  accessKeys = await startAccessKeysService({ env: { CONNECTOR_REGISTRY_URL: registryUrl } });
}, 60_000);
afterAll(async () => {
  await accessKeys.stop();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await h.close();
});

async function createKey(key: string, body: Record<string, unknown>): Promise<{ status: number; body: any }> {
  const res = await fetch(`${accessKeys.url}/api/v1/access-keys/`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

describe('access-key restrictions name ids that exist in the organization', () => {
  it('a tool pack or registered user id that does not exist there is a 400 naming the id; existing ones are accepted', async () => {
    const org = await h.newOrganization();
    const other = await h.newOrganization();
    const pack = await request(h.app).post('/api/v1/tool-packs/').set(bearer(org.master_key)).send({ name: 'P', description: '', connectors: [{ connector_id: builtinConnectorId('github'), auth_scope: 'INDIVIDUAL', tool_names: [] }] });
    const user = await request(h.app).post('/api/v1/registered-users/').set(bearer(org.master_key)).send({ origin_user_id: 'u1', origin_user_name: 'U', shared_credential_group: { origin_company_id: 'c', origin_company_name: 'C', custom_groupings: {} } });
    const othersPack = await request(h.app).post('/api/v1/tool-packs/').set(bearer(other.master_key)).send({ name: 'Q', description: '', connectors: [{ connector_id: builtinConnectorId('github'), auth_scope: 'INDIVIDUAL', tool_names: [] }] });
    expect([pack.status, user.status, othersPack.status]).toEqual([201, 201, 201]);
    const nowhere = randomUUID();

    const refused = await createKey(org.master_key, { name: 'r', tool_pack_ids: [pack.body.id, nowhere, othersPack.body.id], registered_user_ids: [user.body.id] });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('validation_error');
    expect(refused.body.errors).toEqual([
      { field: 'body.tool_pack_ids', message: `tool pack ${nowhere} does not exist in this organization and environment` },
      { field: 'body.tool_pack_ids', message: `tool pack ${othersPack.body.id} does not exist in this organization and environment` },
    ]);

    const testEnvironment = await createKey(org.test_key, { name: 't', registered_user_ids: [user.body.id] });
    expect(testEnvironment.status).toBe(400);
    expect(testEnvironment.body.errors).toEqual([{ field: 'body.registered_user_ids', message: `registered user ${user.body.id} does not exist in this organization and environment` }]);

    const created = await createKey(org.master_key, { name: 'ok', tool_pack_ids: [pack.body.id], registered_user_ids: [user.body.id] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ tool_pack_ids: [pack.body.id], registered_user_ids: [user.body.id] });
  });
});
