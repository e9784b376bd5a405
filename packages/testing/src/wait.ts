/** Polls a condition until it holds; fails after a bound that only guards against a hang, never a speed assertion. */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Real time plus a shift set by hand, so expiry is tested without waiting. */
export class ManualClock {
  private offsetMs = 0;
  now = (): number => Date.now() + this.offsetMs;
  date = (): Date => new Date(this.now());
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
