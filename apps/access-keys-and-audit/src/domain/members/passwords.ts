import { hash, verify, type Algorithm } from '@node-rs/argon2';
import { ValidationError } from '@patchbay/errors';

// The package declares Algorithm as a const enum, which per-file compilers (swc) cannot inline: 2 is Argon2id.
const ARGON2ID = 2 as Algorithm;
/** OWASP's argon2id minimum (19 MiB, 2 passes, 1 lane): ~80 ms here, enough to make guessing slow. */
const ARGON2_OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 256;

export function validateNewPassword(password: string, field = 'body.password'): void {
  if (password.length < PASSWORD_MIN_LENGTH) throw ValidationError.forField(field, `must be at least ${PASSWORD_MIN_LENGTH} characters`);
  if (password.length > PASSWORD_MAX_LENGTH) throw ValidationError.forField(field, `must be at most ${PASSWORD_MAX_LENGTH} characters`);
}

export async function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_OPTIONS);
}

/**
 * A hash of no one's password, verified when the email is unknown (or has no password yet), so a
 * sign-in for an unknown email costs the same time as one with a wrong password.
 */
let decoyHash: Promise<string> | undefined;

/** Checks a password against a stored hash; with no hash it still spends one verification and fails. */
export async function verifyPassword(storedHash: string | null | undefined, password: string): Promise<boolean> {
  // No stored password is longer: a longer one is wrong, and hashing a megabyte on every try would be an easy way to load the service.
  if (password.length > PASSWORD_MAX_LENGTH) return verifyPassword(null, password.slice(0, PASSWORD_MAX_LENGTH));
  if (!storedHash) {
    decoyHash ??= hash('patchbay decoy password, never valid', ARGON2_OPTIONS);
    await verify(await decoyHash, password).catch(() => false);
    return false;
  }
  try {
    return await verify(storedHash, password);
  } catch {
    return false;
  }
}
