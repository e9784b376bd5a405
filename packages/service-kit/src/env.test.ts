import { z } from 'zod';
import { ConfigError, commonEnv, loadEnv } from './env';

describe('loadEnv', () => {
  const schema = z.object({ PORT: z.coerce.number().int().default(8081), DATABASE_URL: z.string().url(), ...commonEnv });

  it('returns typed values with defaults', () => {
    const env = loadEnv('svc', schema, { DATABASE_URL: 'postgresql://localhost/x', PATCHBAY_SERVICE_TOKEN: 'a'.repeat(32) });
    expect(env.PORT).toBe(8081);
    expect(env.REDIS_URL).toBe('redis://127.0.0.1:6379');
    expect(env.QUEUE_PREFIX).toBe('bull');
  });

  it('refuses a QUEUE_PREFIX BullMQ could not keep apart (a ":" in it), naming the variable', () => {
    const base = { DATABASE_URL: 'postgresql://localhost/x', PATCHBAY_SERVICE_TOKEN: 'a'.repeat(32) };
    expect(loadEnv('svc', schema, { ...base, QUEUE_PREFIX: 'staging-eu' }).QUEUE_PREFIX).toBe('staging-eu');
    expect(() => loadEnv('svc', schema, { ...base, QUEUE_PREFIX: 'staging:eu' })).toThrow(/QUEUE_PREFIX: must be 1-64 letters/);
  });

  it('names every missing or invalid variable at once, never its value', () => {
    try {
      loadEnv('svc', schema, { PORT: 'eighty', PATCHBAY_SERVICE_TOKEN: 'short-secret' });
      throw new Error('expected a ConfigError');
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      const message = (e as ConfigError).message;
      expect(message).toContain('PORT');
      expect(message).toContain('DATABASE_URL');
      expect(message).toContain('PATCHBAY_SERVICE_TOKEN');
      expect(message).not.toContain('short-secret');
    }
  });
});
