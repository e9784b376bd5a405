import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** Thrown when a ciphertext cannot be opened: wrong key, unknown key id, tampered data or wrong context. */
export class SecretDecryptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretDecryptionError';
  }
}

export class SecretKeyConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretKeyConfigError';
  }
}

const FORMAT = 'v1';
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * AES-256-GCM with named keys so the key can rotate: every ciphertext records the id of the key
 * that sealed it (`v1.<key id>.<iv>.<tag>.<ciphertext>`, base64url parts). New secrets use the active
 * key; older keys stay readable until `reencrypt` has moved everything to the active one.
 *
 * `context` is bound as additional authenticated data (e.g. `connection:<id>`), so a ciphertext
 * copied into another record does not decrypt.
 */
export class SecretBox {
  private readonly keys: Map<string, Buffer>;
  readonly activeKeyId: string;

  constructor(keys: Record<string, Buffer>, activeKeyId: string) {
    this.keys = new Map(Object.entries(keys));
    for (const [id, key] of this.keys) {
      if (!KEY_ID.test(id)) throw new SecretKeyConfigError(`encryption key id "${id}" must be 1 to 32 letters, digits, _ or -`);
      if (key.length !== 32) throw new SecretKeyConfigError(`encryption key "${id}" must be 32 bytes (base64 of 32 random bytes)`);
    }
    if (!this.keys.has(activeKeyId)) throw new SecretKeyConfigError(`the active encryption key "${activeKeyId}" is not among the configured keys`);
    this.activeKeyId = activeKeyId;
  }

  seal(plaintext: string, context: string): string {
    const key = this.keys.get(this.activeKeyId) as Buffer;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [FORMAT, this.activeKeyId, iv.toString('base64url'), tag.toString('base64url'), ciphertext.toString('base64url')].join('.');
  }

  open(sealed: string, context: string): string {
    const parts = sealed.split('.');
    if (parts.length !== 5 || parts[0] !== FORMAT) throw new SecretDecryptionError('not a sealed secret');
    const [, keyId, iv, tag, ciphertext] = parts as [string, string, string, string, string];
    const key = this.keys.get(keyId);
    if (!key) throw new SecretDecryptionError(`sealed with key "${keyId}", which is not configured`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretDecryptionError('the secret could not be decrypted (wrong key, wrong context or tampered data)');
    }
  }

  /** The key id a sealed value uses, to find what still needs re-encrypting after a rotation. */
  static keyIdOf(sealed: string): string | undefined {
    const parts = sealed.split('.');
    return parts.length === 5 ? parts[1] : undefined;
  }

  /** Opens with whatever key sealed it and seals again with the active key. */
  reseal(sealed: string, context: string): string {
    return this.seal(this.open(sealed, context), context);
  }

  sealJson(value: unknown, context: string): string {
    return this.seal(JSON.stringify(value), context);
  }

  openJson<T>(sealed: string, context: string): T {
    return JSON.parse(this.open(sealed, context)) as T;
  }
}

/**
 * Keys from the environment:
 *   PATCHBAY_ENCRYPTION_KEYS="k2026a:<base64 32 bytes>,k2025b:<base64 32 bytes>"
 *   PATCHBAY_ENCRYPTION_ACTIVE_KEY=k2026a   (default: the first listed)
 */
export function secretBoxFromEnv(env: NodeJS.ProcessEnv = process.env): SecretBox {
  const raw = env.PATCHBAY_ENCRYPTION_KEYS;
  if (!raw) throw new SecretKeyConfigError('PATCHBAY_ENCRYPTION_KEYS is not set; give one or more "<id>:<base64 of 32 random bytes>" separated by commas');
  const keys: Record<string, Buffer> = {};
  let first: string | undefined;
  for (const entry of raw.split(',').map((e) => e.trim()).filter(Boolean)) {
    const i = entry.indexOf(':');
    if (i <= 0) throw new SecretKeyConfigError('PATCHBAY_ENCRYPTION_KEYS entries must look like "<id>:<base64 key>"');
    const id = entry.slice(0, i);
    keys[id] = Buffer.from(entry.slice(i + 1), 'base64');
    first ??= id;
  }
  return new SecretBox(keys, env.PATCHBAY_ENCRYPTION_ACTIVE_KEY ?? (first as string));
}

/** A fresh key in the format PATCHBAY_ENCRYPTION_KEYS expects. */
export function generateEncryptionKey(id: string): string {
  return `${id}:${randomBytes(32).toString('base64')}`;
}
