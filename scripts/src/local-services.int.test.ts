import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import { Queue, QueueEvents, Worker } from 'bullmq';
import Redis from 'ioredis';
import { findOnPath, freePort, redisAnswers, resolveDatabase, resolveRedis, type LocalService } from './local-services';

/*
 * How pnpm start finds Redis, against real servers: the redis-server binary on this machine's PATH
 * and the embedded js-redis-server, each on a port of its own (the machine's Redis is never used).
 */

const started: LocalService[] = [];
afterEach(async () => {
  for (const service of started.splice(0)) await service.stop();
});

async function deadUrl(): Promise<string> {
  return `redis://127.0.0.1:${await freePort()}`;
}

function collect(): { say: (m: string) => void; lines: string[] } {
  const lines: string[] = [];
  return { say: (m) => lines.push(m), lines };
}

/** The first address of this machine that is not loopback, when it has one. */
function externalAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return undefined;
}

function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const redisServer = findOnPath(['redis-server', 'valkey-server'], process.env.PATH ?? '');

describe('resolveRedis', () => {
  test('uses REDIS_URL when it is set and answers, and starts nothing', async () => {
    const { say, lines } = collect();
    const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    const service = await resolveRedis({ env: { REDIS_URL: url }, say });
    expect(service).toMatchObject({ url, origin: 'configured' });
    expect(lines).toEqual([]);
  });

  test('takes the cluster form of REDIS_URL as it is when its first seed node answers, and refuses it when none does', async () => {
    const seed = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const url = `redis+cluster://${seed.host},127.0.0.1:1`;
    expect(await resolveRedis({ env: { REDIS_URL: url }, say: () => undefined })).toMatchObject({ url, origin: 'configured' });
    const dead = new URL(await deadUrl());
    await expect(resolveRedis({ env: { REDIS_URL: `redis+cluster://${dead.host}` }, say: () => undefined })).rejects.toThrow('no Redis answers there');
  });

  test('refuses a REDIS_URL where nothing answers, naming it', async () => {
    const url = await deadUrl();
    await expect(resolveRedis({ env: { REDIS_URL: url }, say: () => undefined })).rejects.toThrow(`REDIS_URL is set to ${url} but no Redis answers there`);
  });

  (redisServer ? test : test.skip)('with nothing answering, starts the redis-server on the PATH without persistence, on loopback, and stops it', async () => {
    const { say, lines } = collect();
    const service = await resolveRedis({ env: {}, say, searchPath: path.dirname(redisServer!), defaultUrl: await deadUrl() });
    started.push(service);
    expect(service.origin).toBe('path-binary');
    expect(lines.join('\n')).toMatch(/starting (redis|valkey)-server .* without persistence/);
    const redis = new Redis(service.url);
    try {
      expect(await redis.config('GET', 'save')).toEqual(['save', '']);
      expect(await redis.config('GET', 'appendonly')).toEqual(['appendonly', 'no']);
      expect(await redis.config('GET', 'bind')).toEqual(['bind', '127.0.0.1']);
    } finally {
      redis.disconnect();
    }
    await service.stop();
    expect(await redisAnswers(service.url, 500)).toBe(false);
  });

  test('with nothing answering and no server on the PATH, starts the embedded server, announced as in memory and local only; it runs BullMQ', async () => {
    const { say, lines } = collect();
    const service = await resolveRedis({ env: {}, say, searchPath: '', defaultUrl: await deadUrl() });
    started.push(service);
    expect(service.origin).toBe('embedded');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/embedded Redis-compatible server \(js-redis-server\)\. It keeps everything in memory.*for local use only.*set REDIS_URL/);

    // What the suite needs of it: a queue round trip through BullMQ's Lua scripts.
    const connection = { url: service.url, maxRetriesPerRequest: null };
    const queue = new Queue('start-test', { connection });
    const events = new QueueEvents('start-test', { connection });
    const worker = new Worker('start-test', async (job) => (job.data as { n: number }).n * 2, { connection });
    try {
      await events.waitUntilReady();
      const job = await queue.add('double', { n: 21 });
      expect(await job.waitUntilFinished(events, 20_000)).toBe(42);
    } finally {
      await worker.close();
      await events.close();
      await queue.close();
    }

    // It listens on loopback only: an unauthenticated in-memory server must not be reachable from the network.
    const port = Number(new URL(service.url).port);
    const external = externalAddress();
    if (external) expect(await connects(external, port)).toBe(false);

    await service.stop();
    expect(await redisAnswers(service.url, 500)).toBe(false);
  }, 60_000);

  test('PATCHBAY_EMBEDDED_REDIS=force starts the embedded server even when REDIS_URL answers', async () => {
    const { say, lines } = collect();
    const service = await resolveRedis({ env: { PATCHBAY_EMBEDDED_REDIS: 'force', REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' }, say });
    started.push(service);
    expect(service.origin).toBe('embedded');
    expect(lines[0]).toMatch(/^PATCHBAY_EMBEDDED_REDIS=force: starting the embedded Redis-compatible server/);
    expect(await redisAnswers(service.url)).toBe(true);
  }, 30_000);
});

describe('resolveDatabase', () => {
  const asRoot = process.getuid?.() === 0;
  (asRoot ? test : test.skip)('as root, refuses to start the embedded PostgreSQL where the postgres user cannot reach its data, saying what to do', async () => {
    const closed = mkdtempSync(path.join(tmpdir(), 'patchbay-closed-'));
    chmodSync(closed, 0o700);
    try {
      await expect(resolveDatabase({ env: { PATCHBAY_EMBEDDED_POSTGRES: 'force' }, dataDir: path.join(closed, 'checkout', '.data'), say: () => undefined })).rejects.toThrow(
        `the embedded PostgreSQL runs as the postgres user when pnpm start runs as root, and that user cannot enter ${closed}`,
      );
    } finally {
      rmSync(closed, { recursive: true, force: true });
    }
  });
});
