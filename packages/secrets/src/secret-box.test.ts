import { randomBytes } from 'node:crypto';
import { SecretBox, SecretDecryptionError, SecretKeyConfigError, generateEncryptionKey, secretBoxFromEnv } from './secret-box';

const k1 = randomBytes(32);
const k2 = randomBytes(32);

describe('SecretBox (AES-256-GCM with key ids)', () => {
  it('seals and opens, never storing the plaintext', () => {
    const box = new SecretBox({ a: k1 }, 'a');
    const sealed = box.seal('xoxb-secret-token', 'connection:1');
    expect(sealed).not.toContain('xoxb');
    expect(sealed.startsWith('v1.a.')).toBe(true);
    expect(box.open(sealed, 'connection:1')).toBe('xoxb-secret-token');
  });

  it('uses a fresh IV each time', () => {
    const box = new SecretBox({ a: k1 }, 'a');
    expect(box.seal('same', 'c')).not.toBe(box.seal('same', 'c'));
  });

  it('refuses a ciphertext moved to another record (the context is authenticated)', () => {
    const box = new SecretBox({ a: k1 }, 'a');
    const sealed = box.seal('secret', 'connection:1');
    expect(() => box.open(sealed, 'connection:2')).toThrow(SecretDecryptionError);
  });

  it('refuses tampered data', () => {
    const box = new SecretBox({ a: k1 }, 'a');
    const parts = box.seal('secret', 'c').split('.');
    parts[4] = Buffer.from('tampered').toString('base64url');
    expect(() => box.open(parts.join('.'), 'c')).toThrow(SecretDecryptionError);
  });

  it('rotates: old ciphertexts open after a new active key is added, and reseal moves them to it', () => {
    const old = new SecretBox({ a: k1 }, 'a');
    const sealed = old.seal('secret', 'c');
    const rotated = new SecretBox({ a: k1, b: k2 }, 'b');
    expect(rotated.open(sealed, 'c')).toBe('secret');
    const resealed = rotated.reseal(sealed, 'c');
    expect(SecretBox.keyIdOf(resealed)).toBe('b');
    expect(new SecretBox({ b: k2 }, 'b').open(resealed, 'c')).toBe('secret');
    expect(() => new SecretBox({ b: k2 }, 'b').open(sealed, 'c')).toThrow(/key "a", which is not configured/);
  });

  it('reads keys from PATCHBAY_ENCRYPTION_KEYS and explains a bad configuration', () => {
    const box = secretBoxFromEnv({ PATCHBAY_ENCRYPTION_KEYS: `${generateEncryptionKey('k1')},${generateEncryptionKey('k2')}`, PATCHBAY_ENCRYPTION_ACTIVE_KEY: 'k2' });
    expect(box.activeKeyId).toBe('k2');
    expect(() => secretBoxFromEnv({})).toThrow(SecretKeyConfigError);
    expect(() => secretBoxFromEnv({ PATCHBAY_ENCRYPTION_KEYS: 'k1:c2hvcnQ=' })).toThrow(/32 bytes/);
  });
});
