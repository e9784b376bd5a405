import type { StreamTimeouts } from '../types';

export type DeadlineReason = 'total' | 'first_token' | 'between_tokens' | 'cancelled';

/**
 * The three timeouts of a vendor call on one AbortController: the whole call (totalMs), the first
 * token (firstTokenMs, streams only) and the silence between two tokens (betweenTokensMs, streams
 * only). The caller's own signal cancels it too. Re-arming per token would cost a timer per token;
 * instead one timer checks the time of the last token when it fires and sleeps for the rest.
 */
export class Deadline {
  readonly controller = new AbortController();
  reason: DeadlineReason | null = null;
  private totalTimer: NodeJS.Timeout | null = null;
  private tokenTimer: NodeJS.Timeout | null = null;
  private lastToken = 0;
  private gotToken = false;
  private readonly onAbort: () => void;

  constructor(
    private readonly signal: AbortSignal,
    private readonly timeouts: StreamTimeouts,
    streaming: boolean,
    private readonly now: () => number = Date.now,
  ) {
    this.onAbort = () => this.fire('cancelled');
    if (signal.aborted) this.fire('cancelled');
    else signal.addEventListener('abort', this.onAbort, { once: true });
    this.totalTimer = setTimeout(() => this.fire('total'), timeouts.totalMs);
    if (streaming) this.tokenTimer = setTimeout(() => this.fire('first_token'), timeouts.firstTokenMs);
  }

  get signalOut(): AbortSignal {
    return this.controller.signal;
  }

  /** A token arrived: the first-token timeout is met, the between-tokens clock restarts. */
  token(): void {
    this.lastToken = this.now();
    if (this.gotToken) return;
    this.gotToken = true;
    if (this.tokenTimer) clearTimeout(this.tokenTimer);
    this.armBetween(this.timeouts.betweenTokensMs);
  }

  private armBetween(ms: number): void {
    this.tokenTimer = setTimeout(() => {
      const silent = this.now() - this.lastToken;
      if (silent >= this.timeouts.betweenTokensMs) this.fire('between_tokens');
      else this.armBetween(this.timeouts.betweenTokensMs - silent);
    }, ms);
  }

  private fire(reason: DeadlineReason): void {
    if (this.reason) return;
    this.reason = reason;
    this.clearTimers();
    this.controller.abort(new Error(`vendor call stopped: ${reason}`));
  }

  private clearTimers(): void {
    if (this.totalTimer) clearTimeout(this.totalTimer);
    if (this.tokenTimer) clearTimeout(this.tokenTimer);
    this.totalTimer = null;
    this.tokenTimer = null;
  }

  /** The call is over: timers off, the caller's signal released. */
  dispose(): void {
    this.clearTimers();
    this.signal.removeEventListener('abort', this.onAbort);
  }
}
