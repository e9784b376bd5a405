import { compareHops, describeHops } from './hop-comparison';
import type { RoundResult, TargetResult } from './measure';

/** A target measured in rounds with these p50s; its proxy process used `cpuUs` per request. */
function result(label: string, p50s: number[], service: string, cpuUs: number | null): TargetResult {
  const rounds: RoundResult[] = p50s.map((p50Us, i) => ({ requests: 1000, requestsPerSecond: 1000, p50Us, p99Us: p50Us * 2, non2xx: 0, socketErrors: 0, window: { startUs: i, endUs: i + 1 }, cpuUs: {} }));
  return { label, connections: 1, rounds, requests: 3000, requestsPerSecond: 1000, p50Us: p50s[0]!, p99Us: p50s[0]! * 2, non2xx: 0, socketErrors: 0, cpuUsPerRequest: { [service]: cpuUs } };
}

describe('the edge hop against a bare proxy hop', () => {
  it('takes the median of the round-by-round p50 differences and the ratio of CPU per request', () => {
    const edge = result('edge', [500, 900, 450], 'edge-router', 150);
    const bare = result('bare', [300, 400, 300], 'bare-proxy', 120);
    // Differences 200, 500, 150: median 200.
    expect(compareHops(edge, bare, 'edge-router', 'bare-proxy')).toEqual({ addedP50Us: 200, edgeCpuUs: 150, bareCpuUs: 120, cpuRatio: 1.25, latencyMet: true, cpuMet: true });
  });

  it('misses the latency target past +300 µs and the CPU target past 1.5 times', () => {
    const c = compareHops(result('edge', [700, 700, 700], 'e', 200), result('bare', [300, 300, 300], 'b', 100), 'e', 'b');
    expect(c).toMatchObject({ addedP50Us: 400, cpuRatio: 2, latencyMet: false, cpuMet: false });
    expect(describeHops(c, true)).toBe('edge p50 +400 µs over the bare proxy\'s (target <= +300: MISS); CPU µs/req edge 200 / bare 100 = 2.00 (target <= 1.5: MISS)');
  });

  it('cannot pass the CPU target when a process could not be read', () => {
    expect(compareHops(result('edge', [1], 'e', null), result('bare', [1], 'b', 100), 'e', 'b')).toMatchObject({ cpuRatio: null, cpuMet: false });
  });
});
