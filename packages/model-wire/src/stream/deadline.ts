import { EventEmitter } from 'node:events';
import type { CancelSignal, StreamTimeouts } from '../types';

export type DeadlineReason = 'total' | 'first_token' | 'between_tokens' | 'cancelled';

/**
 * A caller's cancellation with the three members a vendor call reads: what the gateway gives each
 * HTTP request instead of an AbortController. An AbortController is an EventTarget: one per request,
 * and the one a Deadline kept, cost about 10% of the gateway's CPU per model request (apps/model-gateway README).
 */
export class Cancellation implements CancelSignal {
  aborted = false;
  private listeners: Array<() => void> = [];

  addEventListener(_type: 'abort', listener: () => void): void {
    this.listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const at = this.listeners.indexOf(listener);
    if (at !== -1) this.listeners.splice(at, 1);
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    for (const listener of this.listeners.splice(0)) listener();
  }
}

/**
 * The three timeouts of a vendor call on one abort event: the whole call (totalMs), the first
 * token (firstTokenMs, streams only) and the silence between two tokens (betweenTokensMs, streams
 * only). The caller's own signal cancels it too. Re-arming per token would cost a timer per token;
 * instead one timer checks the time of the last token when it fires and sleeps for the rest.
 */
export class Deadline {
  /**
   * What the request to the vendor listens to: an EventEmitter that emits 'abort', which undici takes
   * as a request's signal as it takes an AbortSignal (and costs a fraction of one). It has no
   * `aborted` of its own: undici reads one as a native AbortSignal's. Check `reason` before sending.
   */
  readonly abortEvents = new EventEmitter();
  reason: DeadlineReason | null = null;
  private totalTimer: NodeJS.Timeout | null = null;
  private tokenTimer: NodeJS.Timeout | null = null;
  private lastToken = 0;
  private gotToken = false;
  private readonly onAbort: () => void;

  constructor(
    private readonly signal: CancelSignal,
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

  get signalOut(): EventEmitter {
    return this.abortEvents;
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
    this.abortEvents.emit('abort');
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
