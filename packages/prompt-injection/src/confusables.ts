/**
 * Letters from other scripts that look like Latin letters (a subset of Unicode's confusables.txt:
 * the ones that are near-identical in common fonts), mapped to the lower-case Latin letter they
 * imitate. Fullwidth forms, mathematical alphanumerics, ligatures and circled letters need no entry:
 * NFKC folds them first.
 */
const PAIRS: Array<[string, string]> = [
  // Cyrillic
  ['а', 'a'], ['А', 'a'], ['В', 'b'], ['е', 'e'], ['Е', 'e'], ['ё', 'e'], ['Ё', 'e'], ['і', 'i'], ['І', 'i'], ['ї', 'i'], ['Ї', 'i'],
  ['ј', 'j'], ['Ј', 'j'], ['к', 'k'], ['К', 'k'], ['М', 'm'], ['Н', 'h'], ['о', 'o'], ['О', 'o'], ['р', 'p'], ['Р', 'p'],
  ['с', 'c'], ['С', 'c'], ['Т', 't'], ['у', 'y'], ['У', 'y'], ['х', 'x'], ['Х', 'x'], ['ѕ', 's'], ['Ѕ', 's'], ['һ', 'h'],
  ['Һ', 'h'], ['ԁ', 'd'], ['ԛ', 'q'], ['Ԛ', 'q'], ['ԝ', 'w'], ['Ԝ', 'w'], ['ӏ', 'l'], ['Ӏ', 'l'], ['ɡ', 'g'], ['ո', 'n'],
  // Greek
  ['α', 'a'], ['Α', 'a'], ['Β', 'b'], ['ε', 'e'], ['Ε', 'e'], ['Ζ', 'z'], ['Η', 'h'], ['ι', 'i'], ['Ι', 'i'], ['κ', 'k'],
  ['Κ', 'k'], ['Μ', 'm'], ['ν', 'v'], ['Ν', 'n'], ['ο', 'o'], ['Ο', 'o'], ['ρ', 'p'], ['Ρ', 'p'], ['τ', 't'], ['Τ', 't'],
  ['υ', 'u'], ['Υ', 'y'], ['χ', 'x'], ['Χ', 'x'],
  // Armenian
  ['օ', 'o'], ['Օ', 'o'], ['ս', 'u'], ['հ', 'h'], ['ց', 'g'],
  // Latin lookalikes outside a-z (dotless i, small capitals, script g)
  ['ı', 'i'], ['ȷ', 'j'], ['ɑ', 'a'], ['ɩ', 'i'], ['ɪ', 'i'], ['ʟ', 'l'], ['ᴀ', 'a'], ['ʙ', 'b'], ['ᴄ', 'c'], ['ᴅ', 'd'],
  ['ᴇ', 'e'], ['ғ', 'f'], ['ɢ', 'g'], ['ʜ', 'h'], ['ᴊ', 'j'], ['ᴋ', 'k'], ['ᴍ', 'm'], ['ɴ', 'n'], ['ᴏ', 'o'], ['ᴘ', 'p'],
  ['ʀ', 'r'], ['ꜱ', 's'], ['ᴛ', 't'], ['ᴜ', 'u'], ['ᴠ', 'v'], ['ᴡ', 'w'], ['ʏ', 'y'], ['ᴢ', 'z'],
];

export const CONFUSABLES: ReadonlyMap<string, string> = new Map(PAIRS);

/** Matches any character of the table (one class, built once). */
export const CONFUSABLE_CHAR = new RegExp(`[${PAIRS.map(([from]) => from).join('')}]`);
