/** Where integration tests find PostgreSQL and Redis (the machine's standard ports unless overridden). */
export const TEST_DATABASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/patchbay_test';
export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const TEST_SERVICE_TOKEN = 'test-service-token-0123456789';
