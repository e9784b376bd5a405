import { BENCH_USER_AGENT, countCaller, type CallCounts } from './mcp-providers';

describe('the providers process call counts', () => {
  it("tells the benchmark's own requests from everyone else's by User-Agent", () => {
    const counts: CallCounts = { bench: 0, others: 0 };
    countCaller(counts, BENCH_USER_AGENT);
    countCaller(counts, 'patchbay');
    countCaller(counts, undefined);
    expect(counts).toEqual({ bench: 1, others: 2 });
  });
});
