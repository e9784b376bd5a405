import { startAccessKeysService } from './access-keys-service';

describe('startAccessKeysService', () => {
  it('runs the real service and creates organizations whose keys it verifies', async () => {
    const service = await startAccessKeysService();
    try {
      const org = await service.createOrganization({ plan: 'paid' });
      expect(org.master_key).toMatch(/^pb_live_/);
      const key = await service.createKey(org.master_key, { name: 'narrow', scopes: ['runtime:all'] });
      expect(key.key).toMatch(/^pb_live_/);
      const res = await fetch(`${service.url}/api/v1/access-keys/`, { headers: { authorization: `Bearer ${org.master_key}` } });
      expect(res.status).toBe(200);
    } finally {
      await service.stop();
    }
  });
});
