import path from 'node:path';
import { TEST_DATABASE_URL, TEST_REDIS_URL, TEST_SERVICE_TOKEN, freePort, startServiceProcess, waitFor, type ServiceProcess } from '@patchbay/testing';
import { request, rpc, scenario, startHarness, type Harness } from './harness';

let h: Harness;
let worker: ServiceProcess | null = null;
beforeAll(async () => {
  // The replica answering agents stores no records itself...
  h = await startHarness({ TOOL_CALL_RECORD_WORKERS: 'false' });
}, 90_000);
afterAll(async () => {
  await worker?.stop();
  await h.close();
});

describe('record workers as their own deployment (node dist/worker.js)', () => {
  it('a call answered by a replica without workers is stored once the worker deployment runs', async () => {
    const s = await scenario(h);
    const call = await rpc(s.mcpUrl, s.org.master_key, { id: 1, jsonrpc: '2.0', method: 'tools/call', params: { name: 'github__list_issues', arguments: { input: { owner: 'octo-org', repo: 'hello' } } } });
    expect(call.body.result.isError).toBeFalsy();
    // ...the worker process does, from the queue.
    const port = await freePort();
    worker = await startServiceProcess(
      'mcp-runtime worker',
      path.resolve(__dirname, '..'),
      { ...process.env, PORT: String(port), DATABASE_URL: TEST_DATABASE_URL, REDIS_URL: TEST_REDIS_URL, PATCHBAY_SERVICE_TOKEN: TEST_SERVICE_TOKEN, PATCHBAY_MIGRATE_ON_START: 'false', LOG_LEVEL: 'warn' },
      'worker.js',
    );
    expect((await fetch(`${worker.url}/healthz`)).status).toBe(200);
    let records: Array<{ tool_name: string }> = [];
    await waitFor(async () => {
      records = (await request(h.url, s.org.master_key, 'GET', `/api/v1/tool-call-records/?registered_user_id=${s.userId}`)).body.results;
      return records.length === 1;
    });
    expect(records[0]).toMatchObject({ tool_name: 'github__list_issues', status: 'success' });
  });
});
