import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RedisSpendControl } from '@patchbay/gateway-spend';
import { startFakeOpenAI, type FakeVendor } from '@patchbay/provider-fakes';
import Redis from 'ioredis';
import { createAdmissionFloor, floorCost, floorReservation, floorSubject, NO_RECORDS } from './admission-floor';
import { chatBody, EXPECTED_ANSWER } from './gateway-legs';

const prefix = `patchbay:test:admission-floor:${randomUUID()}:`;
let redis: Redis;
let fake: FakeVendor;
const opened: Array<{ server: Server; spend: RedisSpendControl }> = [];

beforeAll(async () => {
  redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  fake = await startFakeOpenAI();
});

afterAll(async () => {
  for (const { server, spend } of opened) {
    spend.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
  await fake.close();
});

async function startFloor(subject = floorSubject()): Promise<{ url: string; spend: RedisSpendControl; subject: typeof subject }> {
  const spend = new RedisSpendControl(redis, { ledger: NO_RECORDS, keyPrefix: prefix });
  const server = createAdmissionFloor({ target: new URL(fake.baseUrl), spend, subject });
  opened.push({ server, spend });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`, spend, subject };
}

const post = (url: string, body: string) =>
  fetch(url, { method: 'POST', headers: { authorization: `Bearer ${fake.apiKeys.valid}`, 'content-type': 'application/json' }, body });

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 5_000;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    value = await read();
  }
  return value;
}

describe('the admission floor of pnpm bench gateway', () => {
  it("answers with the vendor's own answer and the admission's budget headers, then settles the answer's real cost", async () => {
    const { url, spend, subject } = await startFloor();
    const res = await post(url, chatBody('gpt-4o-mini'));
    const text = await res.text();
    expect(res.status).toBe(200);
    expect((JSON.parse(text) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe(EXPECTED_ANSWER);
    expect(res.headers.get('x-credit-balance-usd')).not.toBeNull();
    const cost = floorCost(Buffer.from(text))!;
    expect(cost).toBeGreaterThan(0);
    // The reservation (the worst case) is replaced by the real cost once settled.
    expect(cost).toBeLessThan(floorReservation(Buffer.byteLength(chatBody('gpt-4o-mini')), 32));
    const usage = await eventually(() => spend.keyUsage(subject.organizationId, subject.key.hash), (u) => u.total === cost);
    expect(usage.total).toBe(cost);
  });

  it('refuses with 402 api_key_limit_exceeded once the key has spent its limit, and the vendor is never called', async () => {
    const { url, spend, subject } = await startFloor(floorSubject({ limitMicros: 1, limitReset: 'daily' }));
    expect((await post(url, chatBody('gpt-4o-mini'))).status).toBe(200);
    await eventually(() => spend.keyUsage(subject.organizationId, subject.key.hash), (u) => u.total > 0);
    const before = fake.requests.length;
    const refused = await post(url, chatBody('gpt-4o-mini'));
    expect(refused.status).toBe(402);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('api_key_limit_exceeded');
    expect(fake.requests.length).toBe(before);
  });

  it('answers 400 to a body without a whole max_tokens, without admitting it', async () => {
    const { url, spend, subject } = await startFloor();
    const res = await post(url, JSON.stringify({ model: 'gpt-4o-mini', messages: [], max_tokens: 'many' }));
    expect(res.status).toBe(400);
    expect((await spend.keyUsage(subject.organizationId, subject.key.hash)).total).toBe(0);
  });
});
