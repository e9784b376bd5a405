import { randomBytes } from 'node:crypto';
import { mix } from './seed-data';

/**
 * Opaque page tokens (cursors) that carry their own state: base64url of a small JSON object plus a
 * check value, so a fake needs no memory per token and a token that was altered, truncated or made
 * up is told apart from a real one.
 */
export function encodePageToken(state: Record<string, unknown>): string {
  const json = JSON.stringify(state);
  return Buffer.from(`${checksum(json).toString(36)}.${json}`).toString('base64url');
}

export function decodePageToken<T extends Record<string, unknown>>(token: string): T | null {
  try {
    const text = Buffer.from(token, 'base64url').toString('utf8');
    const dot = text.indexOf('.');
    if (dot < 0) return null;
    const json = text.slice(dot + 1);
    if (text.slice(0, dot) !== checksum(json).toString(36)) return null;
    const value: unknown = JSON.parse(json);
    return typeof value === 'object' && value !== null ? (value as T) : null;
  } catch {
    return null;
  }
}

function checksum(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) h = mix(h, text.charCodeAt(i));
  return h;
}

/** A short, stable fingerprint of a list request's filters, so a cursor is only honoured by the list it came from. */
export function fingerprint(parts: Array<string | number | null | undefined>): string {
  return checksum(parts.map((p) => (p === null || p === undefined ? '' : String(p))).join('\u0001')).toString(36);
}

/** A fresh bearer token in a platform's style: `prefix` then random hex. */
export function makeToken(prefix: string, bytes = 16): string {
  return `${prefix}${randomBytes(bytes).toString('hex')}`;
}
