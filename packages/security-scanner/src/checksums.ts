// Validators that turn a regex candidate into a detection. They run only on candidates, so they may allocate.

/** Luhn (mod 10) over a string of ASCII digits. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

interface CardBrand {
  /** Inclusive prefix ranges, compared on the first `digits` digits of the number. */
  ranges: Array<[low: number, high: number]>;
  digits: number;
  lengths: readonly number[];
}

const LEN_16_19 = [16, 17, 18, 19];

// Issuer identification number ranges of the networks in wide use. A Luhn-valid number outside them is
// more likely an order or tracking number than a card.
const CARD_BRANDS: CardBrand[] = [
  { ranges: [[4, 4]], digits: 1, lengths: [13, 16, 19] }, // Visa
  { ranges: [[51, 55]], digits: 2, lengths: [16] }, // Mastercard
  { ranges: [[2221, 2720]], digits: 4, lengths: [16] }, // Mastercard 2-series
  { ranges: [[34, 34], [37, 37]], digits: 2, lengths: [15] }, // American Express
  { ranges: [[6011, 6011]], digits: 4, lengths: LEN_16_19 }, // Discover
  { ranges: [[644, 649]], digits: 3, lengths: LEN_16_19 }, // Discover
  { ranges: [[65, 65]], digits: 2, lengths: LEN_16_19 }, // Discover
  { ranges: [[62, 62]], digits: 2, lengths: LEN_16_19 }, // UnionPay (includes Discover's 622126-622925)
  { ranges: [[3528, 3589]], digits: 4, lengths: LEN_16_19 }, // JCB
  { ranges: [[300, 305], [309, 309]], digits: 3, lengths: [14, 15, 16, 17, 18, 19] }, // Diners Club
  { ranges: [[36, 36], [38, 39]], digits: 2, lengths: [14, 15, 16, 17, 18, 19] }, // Diners Club
  { ranges: [[2200, 2204]], digits: 4, lengths: LEN_16_19 }, // Mir
  { ranges: [[5018, 5018], [5020, 5020], [5038, 5038], [5893, 5893], [6304, 6304], [6759, 6759], [6761, 6763]], digits: 4, lengths: [13, 14, 15, 16, 17, 18, 19] }, // Maestro
];

export function knownCardPrefix(digits: string): boolean {
  for (const brand of CARD_BRANDS) {
    if (!brand.lengths.includes(digits.length)) continue;
    const prefix = Number(digits.slice(0, brand.digits));
    for (const [low, high] of brand.ranges) if (prefix >= low && prefix <= high) return true;
  }
  return false;
}

export function isCardNumber(digits: string): boolean {
  return digits.length >= 13 && digits.length <= 19 && knownCardPrefix(digits) && luhnValid(digits);
}

/** US Social Security number parts: the Social Security Administration never issues these. */
export function isValidSsn(area: string, group: string, serial: string): boolean {
  if (area === '000' || area === '666' || area.charCodeAt(0) === 57 /* 9xx */) return false;
  return group !== '00' && serial !== '0000';
}

/** IBAN length per country (ISO 13616 registry). Countries not listed are not detected. */
export const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BR: 29, BY: 28, CH: 21, CR: 22, CY: 28,
  CZ: 24, DE: 22, DK: 18, DO: 28, EE: 20, EG: 29, ES: 24, FI: 18, FO: 18, FR: 27, GB: 22, GE: 22, GI: 23, GL: 18,
  GR: 27, GT: 28, HR: 21, HU: 28, IE: 22, IL: 23, IQ: 23, IS: 26, IT: 27, JO: 30, KW: 30, KZ: 20, LB: 28, LC: 32,
  LI: 21, LT: 20, LU: 20, LV: 21, MC: 27, MD: 24, ME: 22, MK: 19, MR: 27, MT: 31, MU: 30, NL: 18, NO: 15, PK: 24,
  PL: 28, PS: 29, PT: 25, QA: 29, RO: 24, RS: 22, SA: 24, SC: 31, SE: 24, SI: 19, SK: 24, SM: 27, ST: 25, SV: 28,
  TL: 23, TN: 24, TR: 26, UA: 29, VA: 22, VG: 24, XK: 20,
};

/** ISO 7064 mod 97-10 over an IBAN without spaces: valid when the rearranged number leaves 1. */
export function ibanChecksumValid(iban: string): boolean {
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (let i = 0; i < rearranged.length; i++) {
    const c = rearranged.charCodeAt(i);
    if (c >= 48 && c <= 57) remainder = (remainder * 10 + (c - 48)) % 97;
    else if (c >= 65 && c <= 90) remainder = (remainder * 100 + (c - 55)) % 97;
    else return false;
  }
  return remainder === 1;
}

/** Dotted quad with octets 0-255 and no leading zeros (those read as octal or as other numbers). */
export function isIPv4(text: string): boolean {
  const parts = text.split('.');
  if (parts.length !== 4) return false;
  for (const part of parts) {
    if (part.length === 0 || part.length > 3 || !/^\d+$/.test(part)) return false;
    if (part.length > 1 && part.charCodeAt(0) === 48) return false;
    if (Number(part) > 255) return false;
  }
  return true;
}

const HEX_GROUP = /^[0-9A-Fa-f]{1,4}$/;

/**
 * IPv6 in full, compressed (::) and IPv4-embedded forms. Returns how many 16-bit groups were written
 * out (an embedded IPv4 counts as two), or 0 when the text is not an address.
 */
export function ipv6Groups(text: string): number {
  let body = text;
  let extra = 0;
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    if (!isIPv4(tail)) return 0;
    body = text.slice(0, lastColon + 1);
    extra = 2;
    // "::1.2.3.4" and "a:b::1.2.3.4": the body must still end in a group or in "::".
    if (!body.endsWith('::')) body = body.slice(0, -1);
  }
  if (body.includes('.')) return 0;
  const compressed = body.indexOf('::');
  if (compressed === -1) {
    const groups = body.split(':');
    if (groups.length + extra !== 8) return 0;
    return groups.every((g) => HEX_GROUP.test(g)) ? 8 : 0;
  }
  if (body.indexOf('::', compressed + 1) !== -1) return 0;
  const left = body.slice(0, compressed);
  const right = body.slice(compressed + 2);
  const leftGroups = left === '' ? [] : left.split(':');
  const rightGroups = right === '' ? [] : right.split(':');
  const written = leftGroups.length + rightGroups.length + extra;
  if (written > 7) return 0;
  if (![...leftGroups, ...rightGroups].every((g) => HEX_GROUP.test(g))) return 0;
  return written;
}

/** A JWT's first segment must decode to a JSON object naming its algorithm. */
export function isJwtHeader(segment: string): boolean {
  try {
    const header: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return typeof header === 'object' && header !== null && typeof (header as { alg?: unknown }).alg === 'string';
  } catch {
    return false;
  }
}
