import { CONFUSABLE_CHAR, CONFUSABLES } from './confusables';

/**
 * Where a reading of the input came from. `text` is the input itself, folded; the others are
 * readings an attacker can hide instructions in, each scanned like `text`.
 */
export type ViewName = 'text' | 'leetspeak' | 'base64' | 'hex' | 'percent' | 'rot13' | 'reversed' | 'unicode_tags' | 'hidden';

/** Views that exist only because something was encoded: an instruction found there was hidden on purpose. */
export const DECODED_VIEWS: ReadonlySet<ViewName> = new Set(['base64', 'hex', 'percent', 'rot13', 'reversed', 'unicode_tags']);

/** Obfuscation seen while folding. None is an injection by itself; each raises the weight of a signal it hid. */
export type Obfuscation = 'invisible_chars' | 'homoglyphs' | 'compatibility_forms' | 'html_entities' | 'unicode_tags';

export interface View {
  name: ViewName;
  text: string;
}

export interface Normalized {
  /** The input folded: invisible characters removed, NFKC, Latin accents and homoglyphs folded, lower case, runs of spaces as one. */
  text: string;
  /**
   * `text` with everything but letters removed, to catch "i g n o r e", "i-g-n-o-r-e", "ig nore"; null
   * when the text shows no split words (single letters in a row, fragments of the phrases looked for).
   */
  letters: string | null;
  /** The first four letters of every a-z word of `text`, as prefixKey numbers: what the rules' gates look up. */
  prefixes: Set<number>;
  /** The same per window of `text` when it is longer than WINDOW (see windowStarts), else null. */
  windows: Array<Set<number>> | null;
  /** Other readings (leetspeak, decoded base64/hex/percent/rot13/reversed, Unicode tag characters, hidden HTML/markdown). */
  views: View[];
  obfuscation: Set<Obfuscation>;
}

const NON_ASCII = /[^\x00-\x7f]/;
// Unicode tag characters (U+E0000-E007F) spell ASCII invisibly ("ASCII smuggling"): a surrogate pair each.
const TAG_CHARS = /\udb40[\udc00-\udc7f]/g;
// Zero-width, joiners, soft hyphen, bidi controls, variation selectors, fillers.
const INVISIBLE_CLASS = '\\u00ad\\u034f\\u061c\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180e\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u206f\\u3164\\ufe00-\\ufe0f\\ufeff\\uffa0';
const INVISIBLE = new RegExp(`[${INVISIBLE_CLASS}]+`, 'g');
const INVISIBLE_IN_WORD = new RegExp(`\\p{L}[${INVISIBLE_CLASS}]+\\p{L}`, 'u');
// Fullwidth forms, mathematical alphanumerics, enclosed alphanumerics: what NFKC turns into ASCII letters.
const COMPATIBILITY_LETTERS = /[\uff21-\uff3a\uff41-\uff5a\u24b6-\u24e9]|\ud835[\udc00-\udfff]|\ud83c[\udd30-\udd89]/;
const LATIN_MARKS = /([A-Za-z])[\u0300-\u036f]+/g;
const QUOTES_SINGLE = /[\u2018\u2019\u201a\u201b\u2032\u02bc]/g;
const QUOTES_DOUBLE = /[\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb\u300c\u300d\u300e\u300f]/g;
const DASHES = /[\u2010-\u2015\u2212]/g;
const ENTITY = /&(?:#(\d{1,7})|#x([0-9a-f]{1,6})|(lt|gt|amp|quot|apos|nbsp));/gi;
const NAMED_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'", nbsp: ' ' };
const SPACES = /[^\S\n]+/g;
// Whitespace other than single spaces and newlines: only then is the SPACES pass needed.
const ODD_SPACE = /[\t\r\f\v\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\u0085]| {2}/;
const NEWLINES = / ?\n[\s]*/g;
const WORD = /\p{L}+/gu;
const LETTER_ASCII = /[a-z]/gi;
const LETTER_ANY = /\p{L}/gu;

/** Removes Unicode tag characters; returns the ASCII they spelled (empty when none). */
function extractTagText(text: string): [rest: string, hidden: string] {
  if (!text.includes('\udb40')) return [text, ''];
  let hidden = '';
  const rest = text.replace(TAG_CHARS, (pair) => {
    const code = pair.charCodeAt(1) - 0xdc00;
    if (code >= 0x20 && code < 0x7f) hidden += String.fromCharCode(code);
    return '';
  });
  return [rest, hidden];
}

function decodeEntities(text: string, seen: Set<Obfuscation>): string {
  return text.replace(ENTITY, (whole, dec: string | undefined, hex: string | undefined, name: string | undefined) => {
    if (name) return NAMED_ENTITIES[name.toLowerCase()] ?? whole;
    const code = dec ? Number(dec) : parseInt(hex!, 16);
    if (code > 0x10ffff) return whole;
    const char = String.fromCodePoint(code);
    if (/[a-z]/i.test(char)) seen.add('html_entities');
    return char;
  });
}

/**
 * Maps homoglyphs to the Latin letters they imitate, in words that mix them with Latin letters, or
 * everywhere when the text is mostly Latin. Text in Cyrillic or Greek keeps its letters.
 */
function foldConfusables(text: string, seen: Set<Obfuscation>): string {
  if (!CONFUSABLE_CHAR.test(text)) return text;
  const latin = text.match(LETTER_ASCII)?.length ?? 0;
  const letters = text.match(LETTER_ANY)?.length ?? 1;
  const mostlyLatin = latin * 2 >= letters;
  return text.replace(WORD, (word) => {
    if (!CONFUSABLE_CHAR.test(word)) return word;
    const mixed = /[a-z]/i.test(word);
    if (!mixed && !mostlyLatin) return word;
    let out = '';
    for (const char of word) out += CONFUSABLES.get(char) ?? char;
    if (mixed) seen.add('homoglyphs');
    return out;
  });
}

/**
 * Folds text to the form the signals are written for. ASCII input skips the Unicode steps, which is
 * most traffic. Line breaks are kept (fake "system:" lines are a signal); other whitespace runs become one space.
 */
export function fold(input: string, seen: Set<Obfuscation> = new Set()): string {
  let text = input;
  if (NON_ASCII.test(text)) {
    if (INVISIBLE_IN_WORD.test(text)) seen.add('invisible_chars');
    text = text.replace(INVISIBLE, '');
    if (COMPATIBILITY_LETTERS.test(text)) seen.add('compatibility_forms');
    text = text.normalize('NFKC');
    if (NON_ASCII.test(text)) {
      text = text.normalize('NFD').replace(LATIN_MARKS, '$1').normalize('NFC');
      text = foldConfusables(text, seen);
      text = text.replace(QUOTES_SINGLE, "'").replace(QUOTES_DOUBLE, '"').replace(DASHES, '-');
    }
  }
  if (text.includes('&')) text = decodeEntities(text, seen);
  text = text.toLowerCase();
  if (ODD_SPACE.test(text)) text = text.replace(SPACES, ' ');
  return text.includes('\n') ? text.replace(NEWLINES, '\n') : text;
}

// ---------------------------------------------------------------------------------------------
// Other readings
// ---------------------------------------------------------------------------------------------

const LEET_TOKEN = /[a-z0-9@$]+/g;
const LEET: Record<string, string> = { '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '8': 'b', '9': 'g', '@': 'a', $: 's' };

/** Leetspeak read as letters ("1gn0r3" as "ignore"), or null when fewer than two words use it. */
export function leetspeak(text: string): string | null {
  let changed = 0;
  const out = text.replace(LEET_TOKEN, (token) => {
    if (!/[0-9@$]/.test(token)) return token;
    // A token of digits only is a number; one letter among digits (v2, 3d, 10x) is too little to read.
    let letters = 0;
    for (let i = 0; i < token.length; i++) {
      const c = token.charCodeAt(i);
      if (c >= 97 && c <= 122) letters++;
    }
    if (letters < 1 || letters * 3 < token.length - letters || token.length < 2) return token;
    let word = '';
    for (const char of token) word += LEET[char] ?? char;
    if (word !== token) changed++;
    return word;
  });
  return changed >= 2 ? out : null;
}

const BASE64_RUN = /[A-Za-z0-9+/_-]{16,}={0,2}/g;
const HEX_RUN = /\b(?:[0-9a-fA-F]{2}[ :]?){12,}/g;
const ESCAPED_HEX_RUN = /(?:\\x[0-9a-fA-F]{2}){6,}/g;
const PERCENT_RUN = /(?:%[0-9a-fA-F]{2}){6,}/g;
const MAX_DECODED_RUNS = 16;

/** Decoded bytes that read as text: valid UTF-8, almost all printable, with letters and a space. */
function readableText(bytes: Buffer): string | null {
  if (bytes.length < 8) return null;
  const text = bytes.toString('utf8');
  if (text.includes('\ufffd')) return null;
  let printable = 0;
  let letters = 0;
  let spaces = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 32) spaces++;
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c > 127) letters++;
    if (c >= 32 || c === 9 || c === 10 || c === 13) printable++;
  }
  if (printable < text.length * 0.95 || letters < text.length * 0.5 || spaces === 0) return null;
  return text;
}

function decodeRuns(text: string, pattern: RegExp, decode: (run: string) => Buffer): string[] {
  const out: string[] = [];
  pattern.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = pattern.exec(text)) !== null && out.length < MAX_DECODED_RUNS) {
    const decoded = readableText(decode(m[0]));
    if (decoded !== null) out.push(decoded);
  }
  return out;
}

/** Base64 (standard or URL-safe) runs that decode to readable text. */
export function decodeBase64Runs(text: string): string[] {
  return decodeRuns(text, BASE64_RUN, (run) => Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64'));
}

/** Hex runs (plain, spaced or colon-separated, or \x escapes) that decode to readable text. */
export function decodeHexRuns(text: string): string[] {
  const hex = (run: string) => Buffer.from(run.replace(/\\x|[ :]/g, ''), 'hex');
  return [...decodeRuns(text, HEX_RUN, hex), ...decodeRuns(text, ESCAPED_HEX_RUN, hex)];
}

/** Runs of %XX escapes that decode to readable text. */
export function decodePercentRuns(text: string): string[] {
  return decodeRuns(text, PERCENT_RUN, (run) => Buffer.from(run.replace(/%/g, ''), 'hex'));
}

export function rot13(text: string): string {
  return text.replace(/[a-z]/g, (c) => String.fromCharCode(((c.charCodeAt(0) - 97 + 13) % 26) + 97));
}

function keys(words: string[]): number[] {
  return words.map(prefixKey);
}

// Words as rot13 spells them (first four letters): three of them mark a text worth reading rotated.
const ROT13_WORDS = keys(['gur', 'naq', 'lbh', 'lbhe', 'nyy', 'vtab', 'ceri', 'vafg', 'flfg', 'cebz', 'gryy', 'ceva', 'ehyr', 'erir', 'sbet']);
const ROT13_CUE = keys(['rot', 'caes']);
// Words spelled backwards, and cues that the text is to be read backwards.
const REVERSED_WORDS = keys(['eht', 'dna', 'uoy', 'ruoy', 'lla', 'eron', 'suoi', 'snoi', 'mets', 'tpmo', 'laev', 'tnir']);
const REVERSED_CUE = /\b(?:backwards?|reversed?|right to left)\b/;
// Fragments of the phrases the letters-only reading is searched for, as split words leave them.
const SPLIT_FRAGMENTS = keys(['ig', 'ign', 'nore', 'gnor', 'viou', 'stru', 'ctio', 'tion', 'sys', 'tem', 'mpt', 'rega', 'gard', 'veal', 'any', 'mode']);
const REVERSED_CUE_WORDS = keys(['back', 'reve', 'righ']);

function countIn(prefixes: Set<number>, keys: readonly number[]): number {
  let n = 0;
  for (const key of keys) if (prefixes.has(key)) n++;
  return n;
}

/**
 * A word's first four letters (the whole word when shorter) as one number: five bits a letter and the
 * length, so that scanning a text makes no string per word.
 */
export function prefixKey(word: string): number {
  let key = 0;
  const n = Math.min(4, word.length);
  for (let i = 0; i < n; i++) key = key * 32 + (word.charCodeAt(i) - 96);
  return key + n * 0x100000;
}

export interface WordScan {
  /** prefixKey of every a-z word. */
  prefixes: Set<number>;
  /** For text longer than WINDOW: the prefixes of each window (see windowStarts), from the same pass. */
  windows: Array<Set<number>> | null;
  /** Distinct one-letter words other than "a" and "i". */
  singleLetters: number;
  /** A run of 16 base64 characters. */
  base64: boolean;
  /** A run of 24 hex digits, spaces or colons. */
  hex: boolean;
  /** A digit, @ or $ against a letter (leetspeak). */
  leet: boolean;
}

/**
 * Long texts are scanned in overlapping windows, each with its own gates: an instruction buried in a
 * long document opens the rules for its window only. Every pattern spans far less than the overlap.
 */
export const WINDOW = 4096;
export const WINDOW_OVERLAP = 512;
const WINDOW_STEP = WINDOW - WINDOW_OVERLAP;

/** Where the windows of a text of this length start. */
export function windowStarts(length: number): number[] {
  const starts: number[] = [];
  for (let start = 0; ; start += WINDOW_STEP) {
    starts.push(start);
    if (start + WINDOW >= length) return starts;
  }
}

// One table lookup a character instead of a chain of comparisons.
const LETTER = 1;
const LEET_CHAR = 2;
const BASE64_CHAR = 4;
const HEX_CHAR = 8;
const CHAR_CLASS = new Uint8Array(128);
for (let c = 97; c <= 122; c++) CHAR_CLASS[c] = LETTER | BASE64_CHAR | (c <= 102 ? HEX_CHAR : 0);
for (let c = 48; c <= 57; c++) CHAR_CLASS[c] = LEET_CHAR | BASE64_CHAR | HEX_CHAR;
for (const c of [64, 36]) CHAR_CLASS[c] = LEET_CHAR;
for (const c of [43, 47, 95, 45]) CHAR_CLASS[c] = BASE64_CHAR;
for (const c of [32, 58]) CHAR_CLASS[c] = HEX_CHAR;

/** One pass over folded (lower-case) text: word prefixes (per window too) and the hints that decide which readings to build. */
export function scanWords(text: string): WordScan {
  const prefixes = new Set<number>();
  const windowed = text.length > WINDOW;
  const windows: Array<Set<number>> | null = windowed ? windowStarts(text.length).map(() => new Set<number>()) : null;
  let singles = 0;
  let key = 0;
  let length = 0;
  let wordStart = 0;
  let run = 0;
  let hexRun = 0;
  let base64 = false;
  let hex = false;
  let leet = false;
  let previous = 0;
  const n = text.length;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? text.charCodeAt(i) : 32;
    const k = c < 128 ? CHAR_CLASS[c]! : 0;
    if (k & LETTER) {
      if (length === 0) wordStart = i;
      if (length < 4) key = key * 32 + (c - 96);
      length++;
    } else if (length > 0) {
      const prefix = key + (length < 4 ? length : 4) * 0x100000;
      prefixes.add(prefix);
      if (windows) {
        // The word belongs to every window holding its start: at most two, as windows overlap by less than they step.
        const last = Math.min(windows.length - 1, Math.floor(wordStart / WINDOW_STEP));
        windows[last]!.add(prefix);
        if (last > 0 && wordStart < (last - 1) * WINDOW_STEP + WINDOW) windows[last - 1]!.add(prefix);
      }
      if (length === 1 && key !== 1 && key !== 9) singles |= 1 << key;
      key = 0;
      length = 0;
    }
    if ((k & LEET_CHAR && previous & LETTER) || (k & LETTER && previous & LEET_CHAR)) leet = true;
    previous = k;
    if (k & BASE64_CHAR) {
      if (++run >= 16) base64 = true;
    } else run = 0;
    if (k & HEX_CHAR) {
      if (++hexRun >= 24) hex = true;
    } else hexRun = 0;
  }
  let singleLetters = 0;
  for (let bits = singles; bits; bits &= bits - 1) singleLetters++;
  return { prefixes, windows, singleLetters, base64, hex, leet };
}

// Content a human reader does not see: HTML comments, markdown comments, elements styled invisible.
const HTML_COMMENT = /<!--([\s\S]*?)(?:-->|$)/g;
const MARKDOWN_COMMENT = /^\[(?:\/\/|comment)\]: ?(?:#|<>) ?\((.*)\)\s*$/gm;
const INVISIBLE_ELEMENT =
  /<([a-z][a-z0-9]*)\b[^>]*?(?:style\s*=\s*["'][^"']*(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0|opacity\s*:\s*0(?![.\d]*[1-9])|color\s*:\s*(?:white|#fff(?:fff)?\b|transparent))[^"']*["']|\shidden\b|aria-hidden\s*=\s*["']true["'])[^>]*>([\s\S]*?)<\/\1\s*>/gi;

function hiddenSegments(raw: string): string[] {
  const out: string[] = [];
  for (const pattern of [HTML_COMMENT, MARKDOWN_COMMENT]) {
    pattern.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = pattern.exec(raw)) !== null) if (m[1] && m[1].trim()) out.push(m[1]);
  }
  if (raw.includes('<')) {
    INVISIBLE_ELEMENT.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = INVISIBLE_ELEMENT.exec(raw)) !== null) if (m[2] && m[2].trim()) out.push(m[2]);
  }
  return out;
}

/** Folds the input and builds every other reading worth scanning. */
export function normalize(input: string): Normalized {
  const obfuscation = new Set<Obfuscation>();
  const views: View[] = [];
  const [raw, tagText] = extractTagText(input);
  if (tagText) {
    obfuscation.add('unicode_tags');
    views.push({ name: 'unicode_tags', text: fold(tagText, obfuscation) });
  }
  const text = fold(raw, obfuscation);

  const scan = scanWords(text);
  const prefixes = scan.prefixes;
  // Each reading is built only when the scan hints at it: most text needs none.
  const leet = scan.leet ? leetspeak(text) : null;
  if (leet !== null) views.push({ name: 'leetspeak', text: leet });
  const hints = { base64: scan.base64, hex: scan.hex || raw.includes('\\x'), percent: raw.includes('%'), markup: raw.includes('<') || raw.includes(']:') };
  if (hints.base64) for (const decoded of decodeBase64Runs(raw)) views.push({ name: 'base64', text: fold(decoded) });
  if (hints.hex) for (const decoded of decodeHexRuns(raw)) views.push({ name: 'hex', text: fold(decoded) });
  if (hints.percent) for (const decoded of decodePercentRuns(raw)) views.push({ name: 'percent', text: fold(decoded) });
  if (countIn(prefixes, ROT13_CUE) > 0 || countIn(prefixes, ROT13_WORDS) >= 3) views.push({ name: 'rot13', text: rot13(text) });
  const reversedCue = countIn(prefixes, REVERSED_CUE_WORDS) > 0 && REVERSED_CUE.test(text);
  if (reversedCue || countIn(prefixes, REVERSED_WORDS) >= 3) views.push({ name: 'reversed', text: [...text].reverse().join('') });
  if (hints.markup) for (const segment of hiddenSegments(raw)) views.push({ name: 'hidden', text: fold(segment) });

  const splitWords = scan.singleLetters >= 3 || countIn(prefixes, SPLIT_FRAGMENTS) > 0;
  const letters = splitWords ? text.replace(/[^a-z\u00c0-\uffff]+/g, '') : null;
  return { text, letters, prefixes, windows: scan.windows, views, obfuscation };
}
