import { randomUUID } from 'node:crypto';
import { QUEUE_NAMES, createConsumer, type DirectProducer, type GatewayBatchJob, type GatewayBatchLineJob, type QueueLogger } from '@patchbay/queues';
import type { ConnectionOptions, Worker } from 'bullmq';
import type { IncomingHttpHeaders } from 'node:http';
import type { Db } from '../db';
import { toGatewayErrorLike } from '../http/errors';
import { callerOfKeyHash } from '../keys/callers';
import type { ModelDeps } from '../model/model-request';
import { runCapturedRequest, type CapturedAnswer } from '../model/model-routes';
import type { BatchLineEndpoint } from './batch-input';
import { derivedUuid } from './batch-service';

/** What the batch workers run on: the model pipeline's own dependencies, the database and a producer for line jobs. */
export interface BatchRunnerDeps {
  db: Db;
  model: ModelDeps;
  producer: Pick<DirectProducer, 'send' | 'sendMany'>;
  logger: QueueLogger;
}

export interface BatchWorkerOptions {
  connection: ConnectionOptions;
  prefix?: string;
  /** Lines run at once by this process. */
  concurrency: number;
  /** BullMQ lock settings: how soon another worker takes over the lines of one that died. */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  /** How often this process looks for batches past their window (sweepExpiredBatches); 0 never. Default a minute. */
  sweepIntervalMs?: number;
}

/** Line jobs need not stay in Redis once done: the line's row is what says it ran. */
const LINE_JOB_OPTIONS = { attempts: 5, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: true, removeOnFail: { age: 7 * 24 * 3600 } } as const;
const STEP_JOB_OPTIONS = { attempts: 10, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: true, removeOnFail: { age: 7 * 24 * 3600 } } as const;
const ENQUEUE_CHUNK = 500;
/** A line still running this long after its batch's window closed belongs to a worker that is gone. */
const RUNNING_GRACE_MS = 15 * 60_000;
const SWEEP_INTERVAL_MS = 60_000;
const EXPIRED_ERROR = { error: { code: 'batch_expired', message: 'The batch reached the end of its 24h completion window before this line ran.' } };
const STORE_ATTEMPTS = 4;

export function lineJobId(batchId: string, line: number): string {
  return derivedUuid(`batch:${batchId}:line:${line}`);
}

function errorOf(body: unknown, status: number): { code: string; message: string } {
  const error = typeof body === 'object' && body !== null ? (body as { error?: { code?: unknown; type?: unknown; message?: unknown } }).error : undefined;
  const code = typeof error?.code === 'string' ? error.code : typeof error?.type === 'string' ? error.type : `http_${status}`;
  return { code, message: typeof error?.message === 'string' ? error.message : `The request failed with status ${status}.` };
}

/**
 * Start step: the batch goes in_progress and each pending line becomes a job (ids derived from
 * (batch, line), so a repeated start names the same jobs). A batch whose key no longer works fails
 * as a whole, with the reason in `errors`.
 */
async function startBatch(deps: BatchRunnerDeps, batchId: string): Promise<void> {
  const { db } = deps;
  const batch = await db.batch.findUnique({ where: { id: batchId }, select: { status: true, keyHash: true } });
  if (!batch) return;
  if (batch.status === 'cancelling') {
    await deps.producer.send(QUEUE_NAMES.gatewayBatches, { event_id: randomUUID(), batch_id: batchId, step: 'finalize' }, STEP_JOB_OPTIONS);
    return;
  }
  if (batch.status !== 'validating' && batch.status !== 'in_progress') return;
  try {
    await callerOfKeyHash(batch.keyHash, deps.model.caches);
  } catch (err) {
    const error = toGatewayErrorLike(err);
    await db.batch.updateMany({
      where: { id: batchId, status: 'validating' },
      data: { status: 'failed', failedAt: new Date(), errors: { object: 'list', data: [{ code: error.code ?? error.type, message: `The key that created the batch cannot run it: ${error.message}`, param: null, line: null }] } },
    });
    await db.batchLine.updateMany({ where: { batchId, status: 'pending' }, data: { status: 'cancelled', finishedAt: new Date() } });
    return;
  }
  await db.batch.updateMany({ where: { id: batchId, status: 'validating' }, data: { status: 'in_progress', inProgressAt: new Date() } });
  const pending = await db.batchLine.findMany({ where: { batchId, status: 'pending' }, select: { line: true }, orderBy: { line: 'asc' } });
  for (let i = 0; i < pending.length; i += ENQUEUE_CHUNK) {
    const jobs = pending.slice(i, i + ENQUEUE_CHUNK).map(({ line }) => ({ event_id: lineJobId(batchId, line), batch_id: batchId, line }));
    await deps.producer.sendMany(QUEUE_NAMES.gatewayBatchLines, jobs, LINE_JOB_OPTIONS);
  }
  if (pending.length === 0) await finishIfDone(deps, batchId);
}

/**
 * One line, at most once: the row is claimed (pending → running) before the vendor is called and
 * its answer stored (running → succeeded/failed, with the batch's counts) before the job is
 * acknowledged. A redelivered job finds the line done and does nothing; one that finds it still
 * running belongs to a worker that died mid-call, and the line is reported as interrupted (the
 * vendor may have answered it) instead of being sent a second time.
 */
async function runLine(deps: BatchRunnerDeps, job: GatewayBatchLineJob): Promise<void> {
  const { db } = deps;
  // Claim and read in one statement: the line's request and what the batch says about running it.
  const [claimed] = await db.$queryRaw<Array<{ url: string; body: unknown; key_hash: string; expires_at: Date; scope_headers: unknown }>>`
    UPDATE "batch_lines" AS l SET "status" = 'running', "claimed_at" = now()
    FROM "batches" AS b
    WHERE l."batch_id" = ${job.batch_id}::uuid AND l."line" = ${job.line} AND l."status" = 'pending' AND b."id" = l."batch_id"
    RETURNING l."url", l."body", b."key_hash", b."expires_at", b."scope_headers"`;
  if (!claimed) {
    const stored = await storeResult(deps, job, 'failed', null, {
      error: { code: 'batch_line_interrupted', message: 'The worker running this line stopped before storing its result; it was not sent again, since the vendor may have run it. Resubmit the line if you need its answer.' },
    });
    if (stored?.stored) deps.logger.warn({ batchId: job.batch_id, line: job.line }, 'batch line found running after its worker stopped: reported as interrupted');
    await afterStore(deps, job.batch_id, stored);
    return;
  }
  let answer: CapturedAnswer;
  const requestId = randomUUID();
  if (claimed.expires_at.getTime() <= Date.now()) {
    answer = { status: 0, body: EXPIRED_ERROR };
  } else {
    // The line's request id is stored with its result (no requestContextStorage.run: see model-routes.ts).
    try {
      const caller = await callerOfKeyHash(claimed.key_hash, deps.model.caches);
      answer = await runCapturedRequest(deps.model, caller, claimed.url as BatchLineEndpoint, claimed.body, claimed.scope_headers as IncomingHttpHeaders, new AbortController().signal);
    } catch (err) {
      const error = toGatewayErrorLike(err);
      answer = { status: error.status, body: { error: { type: error.type, message: error.message, code: error.code ?? null } } };
    }
  }
  const ok = answer.status >= 200 && answer.status < 300;
  // The vendor has answered: the result is worth a few tries through a database blip (a retried job could only report it interrupted).
  for (let attempt = 1; ; attempt++) {
    try {
      const stored = await storeResult(deps, job, ok ? 'succeeded' : 'failed', answer.status === 0 ? null : answer.status, answer.body, requestId);
      await afterStore(deps, job.batch_id, stored);
      return;
    } catch (err) {
      if (attempt >= STORE_ATTEMPTS) throw err;
      await new Promise((r) => setTimeout(r, 250 * 2 ** attempt));
    }
  }
}

interface StoredLine {
  status: string;
  completed_lines: number;
  failed_lines: number;
  total_lines: number;
  stored: number;
}

/**
 * Stores a running line's result and counts it on the batch in one statement (atomic, one round
 * trip); `stored` is 0 when the line was not running (already stored, or cancelled).
 */
async function storeResult(deps: BatchRunnerDeps, job: GatewayBatchLineJob, status: 'succeeded' | 'failed', statusCode: number | null, body: unknown, requestId: string | null = null): Promise<StoredLine | undefined> {
  const [row] = await deps.db.$queryRaw<StoredLine[]>`
    WITH stored AS (
      UPDATE "batch_lines" SET "status" = ${status}, "status_code" = ${statusCode}::int, "response" = ${JSON.stringify(body)}::jsonb, "request_id" = ${requestId}, "finished_at" = now()
      WHERE "batch_id" = ${job.batch_id}::uuid AND "line" = ${job.line} AND "status" = 'running'
      RETURNING 1
    )
    UPDATE "batches" SET
      "completed_lines" = "completed_lines" + CASE WHEN ${status} = 'succeeded' THEN (SELECT count(*) FROM stored)::int ELSE 0 END,
      "failed_lines" = "failed_lines" + CASE WHEN ${status} = 'failed' THEN (SELECT count(*) FROM stored)::int ELSE 0 END
    WHERE "id" = ${job.batch_id}::uuid
    RETURNING "status", "completed_lines", "failed_lines", "total_lines", (SELECT count(*) FROM stored)::int AS "stored"`;
  return row;
}

/** After a line: a batch in progress is done when its counts reach its total; a cancelling one when nothing is running. */
async function afterStore(deps: BatchRunnerDeps, batchId: string, row: StoredLine | undefined): Promise<void> {
  if (!row) return;
  if (row.status === 'in_progress' && row.completed_lines + row.failed_lines < row.total_lines) return;
  await finishIfDone(deps, batchId);
}

/** Once no line is pending or running: in_progress → finalizing, and the finalize step is queued. */
async function finishIfDone(deps: BatchRunnerDeps, batchId: string): Promise<void> {
  const left = await deps.db.batchLine.count({ where: { batchId, status: { in: ['pending', 'running'] } } });
  if (left > 0) return;
  await deps.db.batch.updateMany({ where: { id: batchId, status: 'in_progress' }, data: { status: 'finalizing', finalizingAt: new Date() } });
  await deps.producer.send(QUEUE_NAMES.gatewayBatches, { event_id: randomUUID(), batch_id: batchId, step: 'finalize' }, STEP_JOB_OPTIONS);
}

/**
 * Finalize step: writes the output file (answered lines, in input order) and the error file (lines
 * that failed, each naming its custom_id), then the final status: completed, cancelled (after a
 * cancel) or expired (some line outlived the window). Idempotent: a finished batch is left alone,
 * and the files and status are written in one transaction.
 */
async function finalizeBatch(deps: BatchRunnerDeps, batchId: string): Promise<void> {
  const { db } = deps;
  const batch = await db.batch.findUnique({ where: { id: batchId } });
  if (!batch || (batch.status !== 'finalizing' && batch.status !== 'cancelling')) return;
  const left = await db.batchLine.count({ where: { batchId, status: { in: ['pending', 'running'] } } });
  if (left > 0) return;
  const lines = await db.batchLine.findMany({ where: { batchId, status: { in: ['succeeded', 'failed'] } }, orderBy: { line: 'asc' } });
  const output: string[] = [];
  const errors: string[] = [];
  let expired = false;
  const usage = new BatchUsageSum();
  for (const line of lines) {
    const id = `batch_req_${derivedUuid(`${batchId}:${line.line}`).replace(/-/g, '')}`;
    const response = line.statusCode === null ? null : { status_code: line.statusCode, request_id: line.requestId, body: line.response };
    if (line.status === 'succeeded') {
      output.push(JSON.stringify({ id, custom_id: line.customId, response, error: null }));
      usage.add(line.response);
    } else {
      const error = errorOf(line.response, line.statusCode ?? 0);
      if (error.code === 'batch_expired') expired = true;
      errors.push(JSON.stringify({ id, custom_id: line.customId, response, error }));
    }
  }
  const owner = { organizationId: batch.organizationId, environment: batch.environment, customerId: batch.customerId };
  await db.$transaction(async (tx) => {
    const writeFile = async (kind: 'output' | 'error', rows: string[]): Promise<string | null> => {
      if (rows.length === 0) return null;
      const content = Buffer.from(`${rows.join('\n')}\n`, 'utf8');
      const file = await tx.batchFile.create({
        data: { ...owner, purpose: kind === 'output' ? 'batch_output' : 'batch_error', filename: `batch_${batchId}_${kind}.jsonl`, bytes: content.length, lineCount: rows.length, content: new Uint8Array(content) },
        select: { id: true },
      });
      return file.id;
    };
    const now = new Date();
    const final = batch.status === 'cancelling' ? { status: 'cancelled', cancelledAt: now } : expired ? { status: 'expired', expiredAt: now } : { status: 'completed', completedAt: now };
    const moved = await tx.batch.updateMany({ where: { id: batchId, status: batch.status }, data: { ...final, model: usage.model(), usage: usage.total(), outputFileId: await writeFile('output', output), errorFileId: await writeFile('error', errors) } });
    // Another finalize got there first: its files stand, these are dropped with the transaction.
    if (moved.count === 0) throw new FinalizedElsewhere();
  }).catch((err: unknown) => {
    if (!(err instanceof FinalizedElsewhere)) throw err;
  });
}

class FinalizedElsewhere extends Error {}

/** OpenAI's BatchUsage: the tokens of a batch's answered lines (a type, so Prisma takes it as JSON). */
export type BatchUsage = {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
};

/**
 * Adds up the usage of answered lines, whatever the line's endpoint named it: chat completions and
 * embeddings say prompt/completion tokens, responses input/output tokens. Also tracks the model the
 * answers named, which the batch reports when all of them agree.
 */
export class BatchUsageSum {
  private input = 0;
  private cached = 0;
  private output = 0;
  private reasoning = 0;
  private readonly models = new Set<string>();

  add(body: unknown): void {
    if (typeof body !== 'object' || body === null) return;
    const { usage, model } = body as { usage?: Record<string, unknown>; model?: unknown };
    if (typeof model === 'string') this.models.add(model);
    if (!usage) return;
    const count = (...values: unknown[]) => values.find((v): v is number => typeof v === 'number') ?? 0;
    const details = (key: string) => (typeof usage[key] === 'object' && usage[key] !== null ? (usage[key] as Record<string, unknown>) : {});
    this.input += count(usage.input_tokens, usage.prompt_tokens);
    this.output += count(usage.output_tokens, usage.completion_tokens);
    this.cached += count(details('input_tokens_details').cached_tokens, details('prompt_tokens_details').cached_tokens);
    this.reasoning += count(details('output_tokens_details').reasoning_tokens, details('completion_tokens_details').reasoning_tokens);
  }

  model(): string | null {
    return this.models.size === 1 ? [...this.models][0]! : null;
  }

  total(): BatchUsage {
    return {
      input_tokens: this.input,
      input_tokens_details: { cached_tokens: this.cached },
      output_tokens: this.output,
      output_tokens_details: { reasoning_tokens: this.reasoning },
      total_tokens: this.input + this.output,
    };
  }
}

/**
 * Batches whose 24h window has closed while lines never ran, because their jobs were lost (a Redis
 * that lost its data) or too few workers ran: the pending lines fail as `batch_expired`, lines
 * running long past the window as interrupted, and the batch finalizes as `expired` with them in
 * its error file, as OpenAI's does. Without this such a batch would stay in_progress forever. Safe
 * beside live workers: a line changes state only from pending (or running) in one statement, so a
 * line job arriving later finds nothing to run. Returns how many batches it moved on.
 */
export async function sweepExpiredBatches(deps: BatchRunnerDeps, now = new Date()): Promise<number> {
  const { db } = deps;
  const due = await db.batch.findMany({ where: { status: { in: ['validating', 'in_progress'] }, expiresAt: { lte: now } }, select: { id: true }, take: 100 });
  const interrupted = { error: { code: 'batch_line_interrupted', message: 'The line was still running when its batch\'s window closed; the worker running it is gone.' } };
  for (const { id } of due) {
    // The batch row is locked first: a cancel that got there before wins, and this batch is left alone.
    await db.$queryRaw`
      WITH batch AS (
        SELECT "id" FROM "batches" WHERE "id" = ${id}::uuid AND "status" IN ('validating', 'in_progress') FOR UPDATE
      ), expired AS (
        UPDATE "batch_lines" SET "status" = 'failed', "response" = ${JSON.stringify(EXPIRED_ERROR)}::jsonb, "finished_at" = now()
        WHERE "batch_id" IN (SELECT "id" FROM batch) AND "status" = 'pending'
        RETURNING 1
      ), stuck AS (
        UPDATE "batch_lines" SET "status" = 'failed', "response" = ${JSON.stringify(interrupted)}::jsonb, "finished_at" = now()
        WHERE "batch_id" IN (SELECT "id" FROM batch) AND "status" = 'running' AND "claimed_at" < ${new Date(now.getTime() - RUNNING_GRACE_MS)}
        RETURNING 1
      )
      UPDATE "batches" SET
        "failed_lines" = "failed_lines" + (SELECT count(*) FROM expired)::int + (SELECT count(*) FROM stuck)::int,
        "status" = 'in_progress',
        "in_progress_at" = COALESCE("in_progress_at", now())
      WHERE "id" IN (SELECT "id" FROM batch)
      RETURNING 1`;
    await finishIfDone(deps, id);
  }
  if (due.length > 0) deps.logger.warn({ batches: due.map((b) => b.id) }, 'batches past their window expired by the sweep');
  return due.length;
}

/**
 * The batch workers: one consumer for batch steps (start, finalize), one for lines. Run them in the
 * worker process (src/worker.ts); `close()` waits for running lines, `close(true)` does not.
 */
export function startBatchWorkers(deps: BatchRunnerDeps, options: BatchWorkerOptions): { lines: Worker; steps: Worker; close(force?: boolean): Promise<void> } {
  const workerOptions = {
    ...(options.lockDurationMs ? { lockDuration: options.lockDurationMs } : {}),
    ...(options.stalledIntervalMs ? { stalledInterval: options.stalledIntervalMs } : {}),
  };
  const steps: Worker = createConsumer({
    queue: QUEUE_NAMES.gatewayBatches,
    connection: options.connection,
    logger: deps.logger,
    prefix: options.prefix,
    concurrency: 2,
    workerOptions,
    handler: async (payload: GatewayBatchJob) => {
      if (payload.step === 'start') await startBatch(deps, payload.batch_id);
      else await finalizeBatch(deps, payload.batch_id);
    },
  });
  const lines: Worker = createConsumer({
    queue: QUEUE_NAMES.gatewayBatchLines,
    connection: options.connection,
    logger: deps.logger,
    prefix: options.prefix,
    concurrency: options.concurrency,
    workerOptions,
    handler: (payload: GatewayBatchLineJob) => runLine(deps, payload),
  });
  const sweepEvery = options.sweepIntervalMs ?? SWEEP_INTERVAL_MS;
  const sweeper =
    sweepEvery > 0
      ? setInterval(() => {
          sweepExpiredBatches(deps).catch((err: unknown) => deps.logger.warn({ error: err instanceof Error ? err.message : String(err) }, 'expired batch sweep failed; it runs again'));
        }, sweepEvery)
      : null;
  sweeper?.unref();
  return {
    lines,
    steps,
    async close(force = false) {
      if (sweeper) clearInterval(sweeper);
      await Promise.all([lines.close(force), steps.close(force)]);
    },
  };
}
