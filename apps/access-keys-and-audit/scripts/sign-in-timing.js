// Usage (after pnpm build and one test run, which migrates the test database): node scripts/sign-in-timing.js
// Median time of a sign-in with an unknown email vs a known email with a wrong password (same process, same run).
const base = require('node:path').resolve(__dirname, '..') + '/';
const request = require(require.resolve('supertest', { paths: [base] }));
const { createApp } = require(base + 'dist/app');
const { createPrisma } = require(base + 'dist/db');
const { createLogger, createRedis } = require(require.resolve('@patchbay/service-kit', { paths: [base] }));
const { createOrganization } = require(base + 'dist/domain/organizations');
(async () => {
  const db = createPrisma(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/patchbay_test_access_keys_and_audit', 4);
  const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const { app, services } = createApp({ db, redis, logger: createLogger('t', 'silent'), serviceToken: 'x'.repeat(20), publicBaseUrl: 'http://p.test', signInThrottle: { maxFailuresPerAccount: 1e6, maxFailuresPerAddress: 1e6, failureWindowSeconds: 1, lockoutSeconds: 1 } });
  const org = await createOrganization(db, { name: 'timing' });
  const link = await services.members.ownerSetupLink(org.organization_id, 'http://p.test');
  const email = `timing-${Date.now()}@example.com`;
  await request(app).post('/api/v1/invitations/accept').set('Origin', 'http://p.test').send({ token: link.token, name: 'T', password: 'a long password', email });
  const time = async (body) => { const t = process.hrtime.bigint(); await request(app).post('/api/v1/session').set('Origin', 'http://p.test').send(body); return Number(process.hrtime.bigint() - t) / 1e6; };
  const unknown = [], wrong = [];
  for (let i = 0; i < 40; i++) { unknown.push(await time({ email: `nobody-${i}@example.com`, password: 'wrong password' })); wrong.push(await time({ email, password: 'wrong password' })); }
  const med = (a) => a.sort((x, y) => x - y)[a.length >> 1];
  console.log(`unknown email: median ${med(unknown).toFixed(1)} ms; wrong password: median ${med(wrong).toFixed(1)} ms; ratio ${(med(unknown) / med(wrong)).toFixed(2)}`);
  await db.$disconnect(); redis.disconnect(); process.exit(0);
})();
