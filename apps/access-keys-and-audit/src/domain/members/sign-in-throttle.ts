import { createHash } from 'node:crypto';
import { RateLimitError } from '@patchbay/errors';
import type { Cluster, Redis } from 'ioredis';

export interface SignInThrottleSettings {
  maxFailuresPerAccount: number;
  maxFailuresPerAddress: number;
  failureWindowSeconds: number;
  lockoutSeconds: number;
}

const PREFIX = 'patchbay:sign-in';

/** The keys of one throttled subject (an account or an address) share a hash tag: one cluster slot. */
interface SubjectKeys {
  failures: string;
  lock: string;
}

function accountKeys(emailNormalized: string): SubjectKeys {
  // The email is hashed so Redis holds no address book.
  return subjectKeys(`account:${createHash('sha256').update(emailNormalized).digest('hex')}`);
}

function addressKeys(address: string): SubjectKeys {
  return subjectKeys(`address:${address}`);
}

function subjectKeys(subject: string): SubjectKeys {
  return { failures: `${PREFIX}:{${subject}}:failures`, lock: `${PREFIX}:{${subject}}:lock` };
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
    private readonly redis: Redis | Cluster,
    private readonly settings: SignInThrottleSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws 429 with Retry-After while the account or the address is locked. */
  async assertNotLocked(emailNormalized: string, address: string): Promise<void> {
    const [accountTtl, addressTtl] = await Promise.all([this.redis.pttl(accountKeys(emailNormalized).lock), this.redis.pttl(addressKeys(address).lock)]);
    if (accountTtl > 0) throw this.lockedError('this account', accountTtl);
    if (addressTtl > 0) throw this.lockedError('your address', addressTtl);
  }

  /** Counts a failure; returns which lock it set, if any. */
  async recordFailure(emailNormalized: string, address: string): Promise<{ accountLocked: boolean; addressLocked: boolean; retryAfterMs: number }> {
    const lockMs = this.settings.lockoutSeconds * 1000;
    const account = accountKeys(emailNormalized);
    const client = addressKeys(address);
    // One transaction per subject: the account's and the address's keys may live on different shards.
    const [accountCount, addressCount] = await Promise.all([this.countFailure(account), this.countFailure(client)]);
    const accountLocked = accountCount >= this.settings.maxFailuresPerAccount;
    const addressLocked = addressCount >= this.settings.maxFailuresPerAddress;
    await Promise.all([accountLocked ? this.lock(account, lockMs) : null, addressLocked ? this.lock(client, lockMs) : null]);
    return { accountLocked, addressLocked, retryAfterMs: lockMs };
  }

  /** A successful sign-in forgets the account's failures (not the address's). */
  async recordSuccess(emailNormalized: string): Promise<void> {
    await this.redis.del(accountKeys(emailNormalized).failures);
  }

  private async countFailure(keys: SubjectKeys): Promise<number> {
    const result = await this.redis.multi().incr(keys.failures).pexpire(keys.failures, this.settings.failureWindowSeconds * 1000, 'NX').exec();
    return Number(result?.[0]?.[1] ?? 0);
  }

  private async lock(keys: SubjectKeys, lockMs: number): Promise<void> {
    await this.redis.multi().set(keys.lock, '1', 'PX', lockMs).del(keys.failures).exec();
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
