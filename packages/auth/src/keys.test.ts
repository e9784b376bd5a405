import { generateAccessKey, hashAccessKey, hashesEqual, maskAccessKey } from './keys';

describe('access key material', () => {
  it('prefixes production and test keys differently and hashes with SHA-256', () => {
    const live = generateAccessKey('production');
    const test = generateAccessKey('test');
    expect(live.key.startsWith('pb_live_')).toBe(true);
    expect(test.key.startsWith('pb_test_')).toBe(true);
    expect(live.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(live.hash).toBe(hashAccessKey(live.key));
    expect(live.key).not.toBe(generateAccessKey('production').key);
  });

  it('compares hashes in constant time and masks keys', () => {
    const { hash } = generateAccessKey('production');
    expect(hashesEqual(hash, hash)).toBe(true);
    expect(hashesEqual(hash, hashAccessKey('other'))).toBe(false);
    expect(hashesEqual(hash, 'abc')).toBe(false);
    expect(maskAccessKey('pb_live_', 'wxyz')).toBe('pb_live_********wxyz');
  });
});
