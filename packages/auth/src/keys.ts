import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
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
  // One-shot hash: no Hash object per call (every model request and tool call hashes its key).
  return hash('sha256', key, 'hex');
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
