import { NONSTANDARD_COUNTRY, isoCountryCodes, toCountryCode } from './countries';
import { COUNTRY_TEXTS } from './testing/countries-sent';

describe('country text onto ISO 3166-1 alpha-2', () => {
  it('knows the 249 assigned codes, each once, and maps each to itself in any case', () => {
    const codes = isoCountryCodes();
    expect(codes).toHaveLength(249);
    expect(new Set(codes).size).toBe(249);
    for (const code of codes) {
      expect(toCountryCode(code)).toBe(code);
      expect(toCountryCode(code.toLowerCase())).toBe(code);
    }
  });

  it('maps every English country name back to its code', () => {
    const names = new Intl.DisplayNames(['en'], { type: 'region' });
    for (const code of isoCountryCodes()) expect([code, toCountryCode(names.of(code)!)]).toEqual([code, code]);
  });

  it('maps every country text the platforms send, names and variants people type', () => {
    for (const [text, code] of Object.entries(COUNTRY_TEXTS)) expect([text, toCountryCode(text)]).toEqual([text, code]);
  });

  it('ignores case, accents, punctuation and spacing', () => {
    expect(toCountryCode("  cote d'ivoire ")).toBe('CI');
    expect(toCountryCode('Côte d’Ivoire')).toBe('CI');
    expect(toCountryCode('U.S.A.')).toBe('US');
    expect(toCountryCode('united   kingdom')).toBe('GB');
    expect(toCountryCode('Bosnia & Herzegovina')).toBe('BA');
    expect(toCountryCode('Österreich')).toBe('AT');
    expect(toCountryCode('España')).toBe('ES');
  });

  it('gives the nonstandard value for text that names no country, and null for nothing', () => {
    expect(toCountryCode('Atlantis')).toBe(NONSTANDARD_COUNTRY);
    expect(toCountryCode('ZZ')).toBe(NONSTANDARD_COUNTRY);
    expect(toCountryCode('Earth')).toBe(NONSTANDARD_COUNTRY);
    expect(toCountryCode('')).toBeNull();
    expect(toCountryCode('   ')).toBeNull();
    expect(toCountryCode(null)).toBeNull();
    expect(toCountryCode(undefined)).toBeNull();
    expect(toCountryCode(42)).toBeNull();
  });
});
