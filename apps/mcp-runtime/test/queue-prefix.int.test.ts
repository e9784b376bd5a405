import { randomUUID } from 'node:crypto';
import { QUEUE_NAMES, QueueSet, type ToolCallRecordBatchJob } from '@patchbay/queues';
import { createRedis } from '@patchbay/service-kit';
import { TEST_REDIS_URL, waitFor } from '@patchbay/testing';
import { request, rpc, scenario, startHarness, type Harness } from './harness';

/**
 * QUEUE_PREFIX keeps two installations that share a Redis database apart: this runtime ("stack B")
 * sends and takes jobs under its own prefix only, and leaves another installation's jobs alone.
 */

const STACK_B = `stack-b-${process.pid}`;
const STACK_A = `stack-a-${process.pid}`;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ QUEUE_PREFIX: STACK_B });
}, 90_000);
afterAll(async () => {
  await h?.close();
});

function batchFor(s: Awaited<ReturnType<typeof scenario>>): ToolCallRecordBatchJob {
  const now = new Date();
  return {
    event_id: randomUUID(),
    records: [
      {
        event_id: randomUUID(),
        organization_id: s.org.organization_id,
        environment: 'production',
        tool_pack_id: s.packId,
        registered_user_id: s.userId,
        access_key_id: randomUUID(),
        tool_name: 'github__get_issue',
        connector_slug: 'github',
        status: 'success',
        duration_ms: 3,
        credits: 1,
        billing_cycle: now.toISOString().slice(0, 7),
        overage: false,
        detections: [],
        error_code: null,
        occurred_at: now.toISOString(),
      },
    ],
  };
}

it("records travel under the installation's own prefix, and another installation's jobs are left alone", async () => {
  const s = await scenario(h);
  const connection = createRedis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
  const stackA = new QueueSet({ connection, prefix: STACK_A });
  const stackB = new QueueSet({ connection, prefix: STACK_B });
  const queue = QUEUE_NAMES.toolCallRecordBatches;
  try {
    // A job of another installation on the same Redis database, first.
    const foreign = batchFor(s);
    await stackA.get(queue)!.add(queue, foreign, { jobId: foreign.event_id });

    // This installation's own traffic: a real tools/call, and a batch under its prefix.
    const call = await rpc(s.mcpUrl, s.org.master_key, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'github__get_issue', arguments: { input: { owner: 'octo-org', repo: 'hello', issue_number: 1 } } } });
    expect(call.body.result.isError).toBeUndefined();
    const own = batchFor(s);
    await stackB.get(queue)!.add(queue, own, { jobId: own.event_id });

    let ids: string[] = [];
    await waitFor(async () => {
      const res = await request(h.url, s.org.master_key, 'GET', `/api/v1/tool-call-records/?registered_user_id=${s.userId}`);
      ids = res.body.results.map((r: { id: string }) => r.id);
      return ids.length >= 2;
    });
    expect(ids).toContain(own.records[0]!.event_id);
    expect(ids).not.toContain(foreign.records[0]!.event_id);
    expect(ids).toHaveLength(2);
    // Still waiting in its own installation's queue: this runtime's workers never looked there.
    expect(await stackA.get(queue)!.getJobState(foreign.event_id)).toBe('waiting');
  } finally {
    await stackA.get(queue)!.obliterate({ force: true });
    await stackA.close();
    await stackB.close();
    connection.disconnect();
  }
});
