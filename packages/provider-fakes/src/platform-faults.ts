/** What can go wrong on the way to a marketing-platform fake, queued by a test and spent request by request. */
export type FaultKind = 'server-error' | 'cut' | 'slow' | 'rate-limit';

/** Which requests a fault applies to, and after how many of them it starts. */
export interface FaultTarget {
  /**
   * Only requests whose path contains this string (`'/attendees/'`), or whose path and query match
   * this expression. Default: every request (token requests included).
   */
  path?: string | RegExp;
  /** Let this many matching requests through untouched first ("fail the third page"). Default 0. */
  after?: number;
}

export interface FaultRule extends FaultTarget {
  kind: FaultKind;
  /** How many matching requests it still affects. */
  remaining: number;
  /** server-error: the status (default 503). */
  status?: number;
  /** slow: how long the answer is held (real milliseconds). */
  delayMs?: number;
  /** cut: how many bytes of the body are sent before the connection drops (default half of it). */
  keepBytes?: number;
  /** rate-limit: which of the platform's limits the 429 names (its policy / limit type; default the short one). */
  policy?: string;
  skipped: number;
}

/**
 * The fault queue of one fake. Rules apply in the order they were added; a request meets at most one
 * (the first whose target matches and whose `after` is spent), which then counts one down.
 */
export interface FaultControl {
  /** The next `count` matching requests answer a 5xx with the platform's error body (a burst of server errors). */
  serverErrors(options: FaultTarget & { count: number; status?: number }): void;
  /**
   * The next `count` matching requests (default 1) get their status line and headers, including the
   * full Content-Length, and part of the body; then the connection is destroyed mid-page.
   */
  cutConnection(options?: FaultTarget & { count?: number; keepBytes?: number }): void;
  /** The next `count` matching requests (default 1) are answered only after `delayMs` real milliseconds. */
  slow(options: FaultTarget & { count?: number; delayMs: number }): void;
  /**
   * The next `count` matching requests answer 429 with the platform's own body and headers, whatever the
   * configured limits: a 429 storm. `policy` picks which limit the answer names (platform-specific; see
   * each fake's README section).
   */
  rateLimit(options: FaultTarget & { count: number; policy?: string }): void;
  /** Drops every queued fault. */
  clear(): void;
  /** How many faulted answers are still queued. */
  pending(): number;
}

export class FaultQueue implements FaultControl {
  private rules: FaultRule[] = [];

  serverErrors(options: FaultTarget & { count: number; status?: number }): void {
    this.add({ ...options, kind: 'server-error', remaining: options.count, status: options.status ?? 503 });
  }

  cutConnection(options: FaultTarget & { count?: number; keepBytes?: number } = {}): void {
    this.add({ ...options, kind: 'cut', remaining: options.count ?? 1 });
  }

  slow(options: FaultTarget & { count?: number; delayMs: number }): void {
    this.add({ ...options, kind: 'slow', remaining: options.count ?? 1 });
  }

  rateLimit(options: FaultTarget & { count: number; policy?: string }): void {
    this.add({ ...options, kind: 'rate-limit', remaining: options.count });
  }

  clear(): void {
    this.rules = [];
  }

  pending(): number {
    return this.rules.reduce((sum, r) => sum + r.remaining, 0);
  }

  /** The fault this request meets, if any (counting it down), or undefined. */
  take(path: string, pathAndQuery: string): FaultRule | undefined {
    if (this.rules.length === 0) return undefined;
    for (const rule of this.rules) {
      const matches = rule.path === undefined || (typeof rule.path === 'string' ? path.includes(rule.path) : rule.path.test(pathAndQuery));
      if (!matches) continue;
      if (rule.skipped < (rule.after ?? 0)) {
        rule.skipped += 1;
        continue;
      }
      rule.remaining -= 1;
      if (rule.remaining <= 0) this.rules = this.rules.filter((r) => r !== rule);
      return rule;
    }
    return undefined;
  }

  private add(rule: Omit<FaultRule, 'skipped'>): void {
    if (!Number.isInteger(rule.remaining) || rule.remaining < 1) throw new Error(`A fault needs a positive whole count, got ${rule.remaining}`);
    this.rules.push({ ...rule, skipped: 0 });
  }
}
