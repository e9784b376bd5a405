import Redis, { Cluster } from 'ioredis';
import { queuePrefix } from './prefix';

describe('queuePrefix', () => {
  const single = new Redis({ lazyConnect: true });
  const cluster = new Cluster([{ host: '127.0.0.1', port: 1 }], { lazyConnect: true });
  afterAll(() => {
    single.disconnect();
    cluster.disconnect();
  });

  it('keeps the installation prefix on one Redis, so existing queues keep their keys', () => {
    expect(queuePrefix('bull', 'patchbay-audit-events', single)).toBe('bull');
    expect(queuePrefix(undefined, 'patchbay-audit-events', { host: '127.0.0.1', port: 6379 })).toBe('bull');
  });

  it('hash-tags each queue on a cluster, so every key of a BullMQ script shares a slot', () => {
    expect(queuePrefix('bull', 'patchbay-audit-events', cluster)).toBe('bull:{patchbay-audit-events}');
    expect(queuePrefix('staging', 'patchbay-gateway-usage-records', cluster)).toBe('staging:{patchbay-gateway-usage-records}');
  });

  it('keeps a prefix that carries its own hash tag', () => {
    expect(queuePrefix('{pb}', 'patchbay-audit-events', cluster)).toBe('{pb}');
  });
});
