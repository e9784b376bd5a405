import { createHash, randomBytes } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';

/** How long the second step of a sign-in may wait for its code. */
export const PENDING_SIGN_IN_SECONDS = 300;
/** Wrong codes a pending sign-in takes before it ends (the person signs in again). */
export const PENDING_SIGN_IN_MAX_ATTEMPTS = 5;

/**
 * A sign-in whose first factor (password or single sign-on) passed and whose second is due: verify a
 * TOTP or recovery code, or, when the organization requires two-factor and the person has none yet,
 * enrol first. It lives in Redis under the hash of a random token, which the browser holds in an
 * HttpOnly cookie only: no session exists until the second step passes.
 */
export interface PendingSignIn {
  userId: string;
  organizationId: string;
  membershipId: string;
  method: 'password' | 'sso';
  /** The person must enrol (the organization requires two-factor and they have none). */
  enrol: boolean;
  attempts: number;
}

const PREFIX = 'patchbay:pending-sign-in';
const keyOf = (token: string) => `${PREFIX}:${createHash('sha256').update(token).digest('hex')}`;

export class PendingSignIns {
  constructor(private readonly redis: Redis | Cluster) {}

  async create(pending: Omit<PendingSignIn, 'attempts'>): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.redis.set(keyOf(token), JSON.stringify({ ...pending, attempts: 0 }), 'EX', PENDING_SIGN_IN_SECONDS);
    return token;
  }

  async get(token: string): Promise<PendingSignIn | null> {
    const raw = await this.redis.get(keyOf(token));
    return raw ? (JSON.parse(raw) as PendingSignIn) : null;
  }

  /** Counts a wrong code; past the limit the pending sign-in ends. Returns the attempts left. */
  async recordWrongCode(token: string): Promise<number> {
    const key = keyOf(token);
    const raw = await this.redis.get(key);
    if (!raw) return 0;
    const pending = JSON.parse(raw) as PendingSignIn;
    pending.attempts += 1;
    const left = PENDING_SIGN_IN_MAX_ATTEMPTS - pending.attempts;
    if (left <= 0) await this.redis.del(key);
    else await this.redis.set(key, JSON.stringify(pending), 'KEEPTTL');
    return Math.max(0, left);
  }

  /** Ends it (used once: the first request that takes it wins). */
  async take(token: string): Promise<boolean> {
    return (await this.redis.del(keyOf(token))) === 1;
  }
}
