import { base32Decode, base32Encode, hashRecoveryCode, hotp, matchTotp, newRecoveryCodes, newTotpSecret, otpauthUri, totpCode } from './totp';

// RFC 6238 Appendix B: the SHA-1 seed is the ASCII string "12345678901234567890", 8-digit codes.
const RFC_SEED = Buffer.from('12345678901234567890', 'ascii');

describe('TOTP (RFC 6238)', () => {
  it.each([
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ])('matches the RFC 6238 test vector at T=%i', (seconds, expected) => {
    expect(hotp(RFC_SEED, BigInt(Math.floor(seconds / 30)), 8)).toBe(expected);
  });

  it('matches the RFC 4226 HOTP vectors with 6 digits', () => {
    const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
    expect(expected.map((_, i) => hotp(RFC_SEED, i))).toEqual(expected);
  });

  it('base32 round-trips and decodes the RFC 4648 vector', () => {
    expect(base32Encode(Buffer.from('foobar'))).toBe('MZXW6YTBOI');
    expect(base32Decode('MZXW6YTBOI======').toString()).toBe('foobar');
    const secret = newTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(base32Encode(base32Decode(secret))).toBe(secret);
  });

  it('accepts the current step and one either side, refuses two steps off and reused steps', () => {
    const secret = newTotpSecret();
    const now = 1_800_000_000_000;
    const step = Math.floor(now / 30_000);
    expect(matchTotp(secret, totpCode(secret, now), now)).toBe(step);
    expect(matchTotp(secret, totpCode(secret, now - 30_000), now)).toBe(step - 1);
    expect(matchTotp(secret, totpCode(secret, now + 30_000), now)).toBe(step + 1);
    expect(matchTotp(secret, totpCode(secret, now - 60_000), now)).toBeNull();
    expect(matchTotp(secret, totpCode(secret, now), now, step)).toBeNull();
    expect(matchTotp(secret, 'abcdef', now)).toBeNull();
  });

  it('writes an otpauth URI authenticator apps read', () => {
    const uri = new URL(otpauthUri('JBSWY3DPEHPK3PXP', 'ann@example.com'));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe('/Patchbay:ann@example.com');
    expect(uri.searchParams.get('secret')).toBe('JBSWY3DPEHPK3PXP');
    expect(uri.searchParams.get('issuer')).toBe('Patchbay');
  });

  it('recovery codes are distinct and hash the same with or without the dash', () => {
    const codes = newRecoveryCodes();
    expect(new Set(codes).size).toBe(10);
    expect(codes[0]).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
    expect(hashRecoveryCode(codes[0]!)).toBe(hashRecoveryCode(codes[0]!.replace('-', '').toUpperCase()));
  });
});
