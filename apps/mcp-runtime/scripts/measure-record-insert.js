#!/usr/bin/env node
/**
 * PostgreSQL's CPU per batch of tool-call records, the INSERT sent as before (unnamed, through Prisma's
 * raw query: parsed and planned at every batch) against as now (the named statement each connection
 * plans once). One connection; its backend's CPU (utime + stime) read from /proc/<pid>/stat around
 * each run of N batches, the two alternating round by round. Needs PostgreSQL on this machine and
 * `pnpm build` (it runs dist/).
 *
 *   node scripts/measure-record-insert.js [--batches 1000] [--rounds 8] [--size 36] [--insert-only]
 *
 * DATABASE_URL names the server (default local); the records go to its database
 * patchbay_bench_tool_call_records, emptied at the end. --insert-only leaves the batch's DELETE out
 * (the same statement either way) to show the INSERT alone.
 */
const { randomUUID } = require('node:crypto');
const { readFileSync } = require('node:fs');
const { parseArgs } = require('node:util');
const { applyMigrations, ensureDatabase } = require('@patchbay/db');
const { DB_SCHEMA, MIGRATIONS_DIR } = require('../dist/config');
const { createDatabase } = require('../dist/db');
const { ensureToolCallRecordPartitions, storeToolCallRecords } = require('../dist/domain/tool-call-records');

const { values } = parseArgs({ options: { batches: { type: 'string', default: '1000' }, rounds: { type: 'string', default: '8' }, size: { type: 'string', default: '36' }, 'insert-only': { type: 'boolean', default: false } } });
const [batches, rounds, size] = [values.batches, values.rounds, values.size].map(Number);
const url = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/patchbay');
url.pathname = '/patchbay_bench_tool_call_records';

/** utime + stime in µs (clock ticks are 1/100 s); fields counted after the command name's ')'. */
function cpuUs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

const organizationId = randomUUID();
function batch() {
  const at = new Date().toISOString();
  return Array.from({ length: size }, (_, i) => ({
    event_id: randomUUID(), organization_id: organizationId, environment: 'production', tool_pack_id: organizationId, registered_user_id: randomUUID(), access_key_id: organizationId,
    tool_name: 'github__list_issues', connector_slug: 'github', status: i % 9 === 0 ? 'error' : 'success', error_code: i % 9 === 0 ? 'provider_error' : null, duration_ms: 12 + i,
    credits: 1, billing_cycle: at.slice(0, 7), overage: false, detections: [], occurred_at: at,
    arguments: { input: { owner: 'octo-org', repo: 'hello' } }, result: { content: [{ type: 'text', text: 'x'.repeat(200) }] },
  }));
}

async function main() {
  await ensureDatabase(url.toString());
  await applyMigrations({ databaseUrl: url.toString(), schema: DB_SCHEMA, migrationsDir: MIGRATIONS_DIR });
  const database = createDatabase(url.toString(), 1);
  const { prisma, sql } = database;
  try {
    await ensureToolCallRecordPartitions(prisma);
    const deleting = values['insert-only'] ? { $queryRaw: async () => [] } : prisma;
    const targets = {
      // The code before: the same text and values through Prisma's raw query, an unnamed statement.
      unnamed: { prisma: deleting, sql: { query: async (statement) => ({ rows: await prisma.$queryRawUnsafe(statement.text, ...statement.values) }) } },
      named: { prisma: deleting, sql },
    };
    const backend = async () => (await sql.query('SELECT pg_backend_pid() AS pid', [])).rows[0].pid;
    const pid = await backend();
    for (const target of Object.values(targets)) for (let i = 0; i < 100; i += 1) await storeToolCallRecords(target, batch(), 90);
    const perBatch = { unnamed: [], named: [] };
    for (let round = 0; round < rounds; round += 1) {
      const order = round % 2 === 0 ? ['unnamed', 'named'] : ['named', 'unnamed'];
      for (const name of order) {
        const prepared = Array.from({ length: batches }, batch);
        const before = cpuUs(pid);
        for (const records of prepared) await storeToolCallRecords(targets[name], records, 90);
        perBatch[name].push(Math.round((cpuUs(pid) - before) / batches));
      }
      if ((await backend()) !== pid) throw new Error('the pool changed connections mid-run; the figures would mix two backends');
      process.stdout.write(`round ${round + 1}: unnamed ${perBatch.unnamed[round]} µs, named ${perBatch.named[round]} µs per batch\n`);
    }
    const range = (xs) => `${Math.min(...xs)}-${Math.max(...xs)}`;
    const saved = perBatch.unnamed.map((u, i) => u - perBatch.named[i]);
    process.stdout.write(`PostgreSQL CPU per batch of ${size}${values['insert-only'] ? ' (INSERT alone)' : ' (INSERT and DELETE)'}, ${batches} batches a run, ${rounds} rounds: unnamed ${range(perBatch.unnamed)} µs, named ${range(perBatch.named)} µs, saved ${range(saved)} µs a pair\n`);
  } finally {
    await prisma.$executeRawUnsafe('TRUNCATE tool_call_records, tool_call_daily_usage');
    await database.close();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
