/**
 * The clock a marketing-platform fake lives by: page-token expiry, access-token lifetimes, rate-limit
 * windows, daily resets and the timestamps it stamps on records all read it. It runs with real time
 * (so a client that waits out a Retry-After sees the window pass), and a test moves it on at once with
 * `advance`, pins it with `freeze`, or starts it at a date of its choosing for fully repeatable data.
 */
export interface FakeClock {
  /** The fake's current time in epoch milliseconds. */
  now(): number;
  /** Moves the clock forward (a negative value moves it back). */
  advance(ms: number): void;
  /** Jumps to an absolute time; the clock keeps running from there unless frozen. */
  set(epochMs: number): void;
  /** Stops the clock where it is: only `advance` and `set` move it until `unfreeze`. */
  freeze(): void;
  /** Lets the clock run with real time again, from where it stands. */
  unfreeze(): void;
  /**
   * A strictly increasing stamp: the current time, or one millisecond after the previous stamp when
   * the clock has not moved (a frozen clock, two updates in the same millisecond). Records stamped
   * with it sort in the order they changed.
   */
  stamp(): number;
}

export interface FakeClockOptions {
  /** Where the clock starts (epoch ms). Default: the real time at start. */
  startAt?: number;
  /** Start frozen. Default false. */
  frozen?: boolean;
}

export function createFakeClock(options: FakeClockOptions = {}): FakeClock {
  // The fake's time is `base + (real elapsed since anchor)` while running, `base` while frozen.
  let base = options.startAt ?? Date.now();
  let anchor = performance.now();
  let frozen = options.frozen ?? false;
  let lastStamp = 0;
  const now = () => (frozen ? base : base + Math.floor(performance.now() - anchor));
  const rebase = (to: number) => {
    base = to;
    anchor = performance.now();
  };
  return {
    now,
    advance: (ms) => rebase(now() + ms),
    set: (epochMs) => rebase(epochMs),
    freeze: () => {
      rebase(now());
      frozen = true;
    },
    unfreeze: () => {
      rebase(now());
      frozen = false;
    },
    stamp: () => {
      lastStamp = Math.max(now(), lastStamp + 1);
      return lastStamp;
    },
  };
}

/** The next UTC midnight after `ms`: when a daily limit counted in UTC starts over. */
export function nextUtcMidnight(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
}
