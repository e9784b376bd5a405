import { createHash, randomBytes } from 'node:crypto';

/** A PKCE pair (RFC 7636, S256): 32 random bytes give a 43-character verifier. */
export function createPkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: pkceChallenge(verifier) };
}

/** The S256 challenge of a verifier: base64url(sha256(verifier)). */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** An unguessable `state` for one authorization request (RFC 6749 10.12). */
export function randomOAuthState(): string {
  return randomBytes(32).toString('base64url');
}
