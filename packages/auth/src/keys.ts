import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Environment } from './principal';

const PREFIX: Record<Environment, string> = { production: 'pb_live_', test: 'pb_test_' };

export interface GeneratedKey {
  /** The secret, shown to the client once. */
  key: string;
  hash: string;
  prefix: string;
  last4: string;
}

/** A new access key: environment prefix plus 256 random bits, base64url. */
export function generateAccessKey(environment: Environment): GeneratedKey {
  const prefix = PREFIX[environment];
  const key = prefix + randomBytes(32).toString('base64url');
  return { key, hash: hashAccessKey(key), prefix, last4: key.slice(-4) };
}

/** Keys are stored and looked up only as SHA-256 hex. */
export function hashAccessKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex hashes. */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

export function maskAccessKey(prefix: string, last4: string): string {
  return `${prefix}${'*'.repeat(8)}${last4}`;
}
