import { DEFAULT_ASSUMPTIONS, formatBytes, size, type KindCost } from './capacity-model';

const toolCall: KindCost = {
  label: 'MCP tools/call',
  cpuUsPerUnit: new Map([
    ['mcp-runtime', 6_000],
    ['edge-router', 3_000],
    ['providers', 5_000],
    ['redis', 150],
    ['postgres (bench database backends)', 500],
  ]),
  redisCommandsPerUnit: 12,
  pgRowsWrittenPerUnit: 1.5,
  bytesPerUnit: 700,
};

describe('capacity model', () => {
  it('sizes pods from CPU per request at the pod budget, leaving the third-party stand-ins out', () => {
    const s = size(toolCall, 1_000);
    // 6,000 µs × 1,000/s = 6 cores of mcp-runtime = 10 pods at 0.6 core; the edge 3 cores = 5 pods.
    expect(s.pods).toEqual([
      ['mcp-runtime', 10],
      ['edge-router', 5],
    ]);
  });

  it('takes the larger of the command and CPU bounds for Redis shards', () => {
    // 12 × 10,000 = 120,000 commands/s = 2 shards at 80,000; 150 µs × 10,000 = 1.5 cores = 3 shards at 0.6.
    const s = size(toolCall, 10_000);
    expect([s.redisShards, s.redisBound]).toEqual([3, 'CPU']);
  });

  it('names the PostgreSQL primary as the first limit by what runs out first: writes, CPU or storage', () => {
    // 1.5 rows × 20,000/s = 30,000 rows/s: 60% of the 50,000 a primary is given; its CPU (10 of 64 cores) and
    // storage (700 B × 20,000/s × 90 days = 109 TB) are measured against their own limits.
    const readsOnly = { ...toolCall, bytesPerUnit: 0 };
    expect(size(readsOnly, 20_000).firstLimit).toBe('PostgreSQL primary writes (60%)');
    const s = size(toolCall, 100_000);
    expect(s.pgRowsPerSecond).toBe(150_000);
    expect(s.bytesRetained).toBe(700 * 100_000 * 86_400 * DEFAULT_ASSUMPTIONS.retentionDays);
    expect(s.firstLimit).toBe(`PostgreSQL primary storage (${Math.round((s.bytesRetained / DEFAULT_ASSUMPTIONS.pgMaxBytes) * 100)}% of one)`);
    expect(size(readsOnly, 1_000).firstLimit).toMatch(/^none: pods and Redis shards scale out/);
  });

  it('prints sizes in decimal units', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(6_048_000_000)).toBe('6.0 GB');
    expect(formatBytes(544_320_000_000_000)).toBe('544 TB');
  });
});
