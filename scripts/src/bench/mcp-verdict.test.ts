import type { RoundResult, TargetResult } from './measure';
import { countedTwoXx, problemsOf, verdictOf, type Kind, type Run, type Via } from './mcp-verdict';

/** A target measured in rounds with these p50s, at this many requests per second. */
function result(label: string, connections: number, p50s: number[], requestsPerSecond: number, non2xx = 0): TargetResult {
  const rounds: RoundResult[] = p50s.map((p50Us, i) => ({
    requests: requestsPerSecond,
    requestsPerSecond,
    p50Us,
    p99Us: p50Us * 2,
    non2xx: i === 0 ? non2xx : 0,
    socketErrors: 0,
    window: { startUs: i, endUs: i + 1 },
    cpuUs: {},
  }));
  return {
    label,
    connections,
    rounds,
    requests: requestsPerSecond * rounds.length,
    requestsPerSecond,
    p50Us: p50s[0]!,
    p99Us: p50s[0]! * 2,
    non2xx,
    socketErrors: 0,
    cpuUsPerRequest: {},
  };
}

const run = (kind: Kind, via: Via, r: TargetResult): Run => ({ kind, via, result: r });

/** Edge 600 µs over direct at p50 on one connection (median of 500, 600, 900), 60% of direct throughput at 32. */
const RUNS: Run[] = [
  run('builtin', 'direct', result('(a) direct', 1, [100, 100, 100], 5000)),
  run('builtin', 'edge', result('(a) edge', 1, [600, 700, 1000], 1000)),
  run('builtin', 'runtime', result('(a) runtime', 1, [400, 400, 400], 1500)),
  run('builtin', 'direct', result('(a) direct', 32, [1000, 1000, 1000], 10_000)),
  run('builtin', 'edge', result('(a) edge', 32, [2000, 2000, 2000], 6_000)),
];

describe('the mcp benchmark verdict', () => {
  it('compares the edge with direct: added p50 on one connection, throughput at the loaded count', () => {
    expect(verdictOf(RUNS, 'builtin', 32)).toEqual({ addedP50Us: 600, throughputRatio: 0.6, latencyMet: true, throughputMet: true });
  });

  it('misses each target on its own', () => {
    const slow = RUNS.map((r) => (r.via === 'edge' && r.result.connections === 1 ? run('builtin', 'edge', result('(a) edge', 1, [1200, 1200, 1200], 800)) : r));
    expect(verdictOf(slow, 'builtin', 32)).toMatchObject({ addedP50Us: 1100, latencyMet: false, throughputMet: true });
    const thin = RUNS.map((r) => (r.via === 'edge' && r.result.connections === 32 ? run('builtin', 'edge', result('(a) edge', 32, [2000], 4_900)) : r));
    expect(verdictOf(thin, 'builtin', 32)).toMatchObject({ throughputRatio: 0.49, latencyMet: true, throughputMet: false });
  });

  it('gives no verdict for a kind the run did not measure', () => {
    expect(verdictOf(RUNS, 'custom', 32)).toBeNull();
  });
});

describe('what makes the mcp benchmark figures invalid', () => {
  it("checks a provider that counts every POST together (server-everything) against all the 2xx counted", () => {
    const runs = [run('everything', 'direct', result('(b) everything direct', 1, [100], 1000)), run('everything', 'edge', result('(b) everything edge', 1, [900], 500))];
    const none = { builtin: { bench: 0, others: 0 }, custom: { bench: 0, others: 0 } };
    expect(problemsOf(runs, [], { ...none, everything: { bench: 0, others: 1500 } })).toEqual([]);
    expect(problemsOf(runs, [], { ...none, everything: { bench: 0, others: 1499 } })).toEqual([expect.stringMatching(/server-everything: the provider got 1,499 POSTs, fewer than the 1,500 2xx answers counted$/)]);
  });

  const enough = { builtin: { bench: 45_000, others: 12_500 }, custom: { bench: 0, others: 0 }, everything: { bench: 0, others: 0 } };

  it('counts the 2xx answers through the runtime and direct apart', () => {
    expect(countedTwoXx(RUNS, 'builtin', true)).toBe(3 * 1000 + 3 * 1500 + 3 * 6000);
    expect(countedTwoXx(RUNS, 'builtin', false)).toBe(3 * 5000 + 3 * 10_000);
  });

  it('finds nothing wrong with a clean run whose providers saw every counted call', () => {
    const samples = [{ label: '(a) edge', checked: 10, failed: 0, firstProblem: null }];
    expect(problemsOf(RUNS, samples, { ...enough, builtin: { bench: 45_000, others: 25_500 } })).toEqual([]);
  });

  it('reports failed samples, non-2xx answers, and answers the provider never saw', () => {
    const runs = [...RUNS, run('builtin', 'runtime', result('(a) runtime', 32, [500], 1000, 7))];
    const samples = [{ label: '(a) edge', checked: 10, failed: 2, firstProblem: 'status 429, expected 200' }];
    const problems = problemsOf(runs, samples, enough);
    expect(problems).toEqual([
      '(a) edge: 2 of 10 sampled answers failed; first: status 429, expected 200',
      '(a) runtime, 32 connection(s): 7 non-2xx answers, 0 socket errors',
      expect.stringMatching(/the provider got 12,500 calls from the runtime, fewer than the 26,493 2xx answers counted through it$/),
    ]);
  });
});
