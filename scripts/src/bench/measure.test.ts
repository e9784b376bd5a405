import { median, medianAdded, roundSeconds, type RoundResult, type TargetResult } from './measure';

function target(p50s: number[]): TargetResult {
  const rounds = p50s.map(
    (p50Us, i): RoundResult => ({ requests: 100, requestsPerSecond: 100, p50Us, p99Us: p50Us * 2, non2xx: 0, socketErrors: 0, window: { startUs: i, endUs: i + 1 }, cpuUs: {} }),
  );
  return { label: 't', connections: 1, rounds, requests: 100 * rounds.length, requestsPerSecond: 100, p50Us: median(p50s), p99Us: 0, non2xx: 0, socketErrors: 0, cpuUsPerRequest: {} };
}

describe('round statistics', () => {
  it('takes the median of odd and even counts', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBe(0);
  });

  it('compares a hop with the direct run of the same round, so one disturbed round does not decide', () => {
    const direct = target([1000, 1000, 9000, 1000, 1000]);
    const hop = target([1200, 1300, 1200, 1250, 1200]);
    expect(medianAdded(hop, direct, (r) => r.p50Us)).toBe(200);
  });

  it('splits the measured time into whole seconds per round, at least one', () => {
    expect(roundSeconds({ durationS: 10, rounds: 5 } as Parameters<typeof roundSeconds>[0])).toBe(2);
    expect(roundSeconds({ durationS: 2, rounds: 5 } as Parameters<typeof roundSeconds>[0])).toBe(1);
  });
});
