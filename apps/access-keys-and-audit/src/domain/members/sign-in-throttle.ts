import { createHash } from 'node:crypto';
import { RateLimitError } from '@patchbay/errors';
import type Redis from 'ioredis';

export interface SignInThrottleSettings {
  maxFailuresPerAccount: number;
  maxFailuresPerAddress: number;
  failureWindowSeconds: number;
  lockoutSeconds: number;
}

const PREFIX = 'patchbay:sign-in';

function accountKey(emailNormalized: string): string {
  // The email is hashed so Redis holds no address book.
  return createHash('sha256').update(emailNormalized).digest('hex');
}

function describeWait(ms: number): string {
  const minutes = Math.ceil(ms / 60_000);
  return minutes <= 1 ? 'in a minute' : `in ${minutes} minutes`;
}

/**
 * Failed sign-ins counted per account (email) and per client address in Redis, so every replica
 * shares them. Reaching a limit within the window locks that account or address for the lockout time.
 */
export class SignInThrottle {
  constructor(
    private readonly redis: Redis,
    private readonly settings: SignInThrottleSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws 429 with Retry-After while the account or the address is locked. */
  async assertNotLocked(emailNormalized: string, address: string): Promise<void> {
    const [accountTtl, addressTtl] = await Promise.all([
      this.redis.pttl(`${PREFIX}:lock:account:${accountKey(emailNormalized)}`),
      this.redis.pttl(`${PREFIX}:lock:address:${address}`),
    ]);
    if (accountTtl > 0) throw this.lockedError('this account', accountTtl);
    if (addressTtl > 0) throw this.lockedError('your address', addressTtl);
  }

  /** Counts a failure; returns which lock it set, if any. */
  async recordFailure(emailNormalized: string, address: string): Promise<{ accountLocked: boolean; addressLocked: boolean; retryAfterMs: number }> {
    const windowMs = this.settings.failureWindowSeconds * 1000;
    const lockMs = this.settings.lockoutSeconds * 1000;
    const account = accountKey(emailNormalized);
    const result = await this.redis
      .multi()
      .incr(`${PREFIX}:failures:account:${account}`)
      .pexpire(`${PREFIX}:failures:account:${account}`, windowMs, 'NX')
      .incr(`${PREFIX}:failures:address:${address}`)
      .pexpire(`${PREFIX}:failures:address:${address}`, windowMs, 'NX')
      .exec();
    const accountCount = Number(result?.[0]?.[1] ?? 0);
    const addressCount = Number(result?.[2]?.[1] ?? 0);
    const accountLocked = accountCount >= this.settings.maxFailuresPerAccount;
    const addressLocked = addressCount >= this.settings.maxFailuresPerAddress;
    if (accountLocked || addressLocked) {
      const multi = this.redis.multi();
      if (accountLocked) multi.set(`${PREFIX}:lock:account:${account}`, '1', 'PX', lockMs).del(`${PREFIX}:failures:account:${account}`);
      if (addressLocked) multi.set(`${PREFIX}:lock:address:${address}`, '1', 'PX', lockMs).del(`${PREFIX}:failures:address:${address}`);
      await multi.exec();
    }
    return { accountLocked, addressLocked, retryAfterMs: lockMs };
  }

  /** A successful sign-in forgets the account's failures (not the address's). */
  async recordSuccess(emailNormalized: string): Promise<void> {
    await this.redis.del(`${PREFIX}:failures:account:${accountKey(emailNormalized)}`);
  }

  lockedError(what: 'this account' | 'your address', retryAfterMs: number): RateLimitError {
    const until = new Date(this.now() + retryAfterMs);
    const at = until.toISOString().slice(11, 16);
    return new RateLimitError(
      `Too many failed sign-ins for ${what}; sign-in is locked until ${at} UTC (${describeWait(retryAfterMs)}). Try again then, or ask an admin of your organization.`,
      retryAfterMs / 1000,
    );
  }
}
