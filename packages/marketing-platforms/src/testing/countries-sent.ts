/**
 * Every country text the platform fakes send (names, variants people type, codes), with the ISO
 * alpha-2 code it stands for, written out by hand: what the mapping tests hold the table to.
 */
export const COUNTRY_TEXTS: Record<string, string> = {
  'United States': 'US',
  USA: 'US',
  'United States of America': 'US',
  'United Kingdom': 'GB',
  UK: 'GB',
  Germany: 'DE',
  Deutschland: 'DE',
  France: 'FR',
  Canada: 'CA',
  Australia: 'AU',
  Japan: 'JP',
  Nippon: 'JP',
  Brazil: 'BR',
  Brasil: 'BR',
  India: 'IN',
  Bharat: 'IN',
  Atlantis: 'MERGE_NONSTANDARD_VALUE',
  US: 'US',
  GB: 'GB',
  DE: 'DE',
  FR: 'FR',
  CA: 'CA',
  AU: 'AU',
  JP: 'JP',
  BR: 'BR',
  IN: 'IN',
};
