import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { applyMigrations, ensureDatabase, pgAdapter } from '@patchbay/db';
import { Queue } from 'bullmq';
import { Client } from 'pg';
import { OUTBOX_TABLE_SQL } from '../src/outbox';
import type { QueueLogger } from '../src/logger';
import type { AuditEventJob } from '../src/payloads';
import { PrismaClient } from '../src/generated/test-prisma/client';

export const TEST_DATABASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/patchbay_test';
export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Redis options for BullMQ from the test URL (a fresh connection per Queue/Worker). */
export function redisConnection(): { host: string; port: number; db: number; password?: string } {
  const url = new URL(TEST_REDIS_URL);
  return {
    host: url.hostname,
    port: Number(url.port || 6379),
    db: Number(url.pathname.replace('/', '') || 0),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
  };
}

/** A consumer's table: one row per event_id, the way access-keys-and-audit stores audit events. */
const STORED_EVENTS_SQL = `CREATE TABLE "stored_audit_events" ("event_id" UUID NOT NULL PRIMARY KEY, "event_type" TEXT NOT NULL);`;

export interface TestDatabase {
  prisma: PrismaClient;
  schema: string;
  drop(): Promise<void>;
}

/**
 * A private schema for this test file, migrated the way a producing service does it: the outbox
 * statement copied into a migration.sql and applied by the migration runner.
 */
export async function createTestDatabase(name: string): Promise<TestDatabase> {
  const schema = `queues_test_${name}_${process.pid}`;
  await ensureDatabase(TEST_DATABASE_URL);
  const dir = await mkdtemp(path.join(tmpdir(), 'queues-migrations-'));
  await mkdir(path.join(dir, '20260101000000_event_outbox'));
  await writeFile(path.join(dir, '20260101000000_event_outbox', 'migration.sql'), OUTBOX_TABLE_SQL);
  await mkdir(path.join(dir, '20260101000001_stored_audit_events'));
  await writeFile(path.join(dir, '20260101000001_stored_audit_events', 'migration.sql'), STORED_EVENTS_SQL);
  await applyMigrations({ databaseUrl: TEST_DATABASE_URL, schema, migrationsDir: dir });
  await rm(dir, { recursive: true, force: true });
  const prisma = new PrismaClient({ adapter: pgAdapter(TEST_DATABASE_URL, schema, 5) });
  return {
    prisma,
    schema,
    async drop() {
      await prisma.$disconnect();
      const admin = new Client({ connectionString: TEST_DATABASE_URL });
      await admin.connect();
      try {
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await admin.end();
      }
    },
  };
}

/** A BullMQ key prefix no other test run uses, so queues keep their real names. */
export function uniquePrefix(label: string): string {
  return `queues-test-${label}-${process.pid}-${randomUUID().slice(0, 8)}`;
}

/** Opens Queues on the real Redis and obliterates every one of them at the end. */
export class TestQueues {
  private readonly opened: Queue[] = [];

  constructor(readonly prefix: string) {}

  open(name: string): Queue {
    const queue = new Queue(name, { connection: redisConnection(), prefix: this.prefix });
    this.opened.push(queue);
    return queue;
  }

  async cleanup(): Promise<void> {
    for (const queue of this.opened.splice(0)) {
      await queue.obliterate({ force: true });
      await queue.close();
    }
  }
}

export interface LogLine {
  level: 'info' | 'warn' | 'error';
  fields: Record<string, unknown>;
  message: string;
}

export function memoryLogger(): QueueLogger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  return {
    lines,
    info: (fields, message) => void lines.push({ level: 'info', fields, message }),
    warn: (fields, message) => void lines.push({ level: 'warn', fields, message }),
    error: (fields, message) => void lines.push({ level: 'error', fields, message }),
  };
}

/** Polls until the condition holds; fails after a bound generous enough for a loaded CI machine. */
export async function waitFor(condition: () => Promise<boolean> | boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export function auditEvent(overrides: Partial<AuditEventJob> = {}): AuditEventJob {
  return {
    event_id: randomUUID(),
    organization_id: randomUUID(),
    environment: 'production',
    event_type: 'registered_user.created',
    occurred_at: new Date().toISOString(),
    actor: { type: 'access_key', access_key_id: randomUUID() },
    user_id: randomUUID(),
    resource_type: 'registered_user',
    resource_id: randomUUID(),
    source_service: 'connector-registry',
    details: { origin_user_id: 'user-42' },
    ...overrides,
  };
}
