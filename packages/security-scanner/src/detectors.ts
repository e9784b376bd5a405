import { IBAN_LENGTHS, ibanChecksumValid, isCardNumber, isIPv4, isJwtHeader, isValidSsn, ipv6Groups } from './checksums';
import type { DetectorKind } from './types';

/** Receives the [start, end) offsets of each detection in the scanned text. */
export interface SpanSink {
  add(start: number, end: number): void;
}

/** Cheap facts about a text, computed once, that let a detector skip texts it can never match. */
export const FEATURE_DIGIT = 1;
export const FEATURE_AT = 2;
export const FEATURE_UPPER = 4;
/** A dot or a colon, which every IP address has. */
export const FEATURE_DOT_OR_COLON = 8;
export const FEATURE_9_DIGITS = 16;
export const FEATURE_10_DIGITS = 32;
export const FEATURE_13_DIGITS = 64;
export const ALL_FEATURES = 127;

export interface BuiltinDetector {
  kind: DetectorKind;
  /** When two built-in detections of equal length overlap, the higher rank names the text. */
  rank: number;
  /** Feature bits a text must have for this detector to run on it. */
  needs: number;
  /** Shortest text this detector can match. */
  minLength: number;
  /** Reports every detection in text, in order, without overlaps. */
  find(text: string, sink: SpanSink): void;
}

// Every pattern below runs over whole tool results, some of them megabytes long, so each is written to stay
// linear: a lookbehind stops a match from starting inside a run it already rejected, quantifiers are bounded
// or followed by a character they cannot match, and candidates are confirmed by code rather than by
// backtracking.

// Local part and domain per RFC 5321's common subset; the TLD must be letters. The scan jumps from "@" to "@"
// (indexOf is far cheaper than trying a pattern at every word) and reads outwards from each.
const EMAIL_DOMAIN_RE = /(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,8}([A-Za-z]{2,63})(?![A-Za-z0-9-]|\.[A-Za-z0-9])/y;
const MAX_LOCAL_PART = 64;
// "icon@2x.png" and "font@1.5.woff" are asset names, not addresses.
const FILE_EXTENSIONS = new Set(['png', 'jpg', 'jpeg', 'gif', 'svg', 'webp', 'bmp', 'ico', 'css', 'js', 'mjs', 'cjs', 'ts', 'json', 'map', 'woff', 'woff2', 'ttf']);

function isLocalPartChar(c: number): boolean {
  // A-Z a-z 0-9 . _ % + -
  return isWordChar(c) || c === 46 || c === 37 || c === 43 || c === 45;
}

function findEmails(text: string, sink: SpanSink): void {
  let at = text.indexOf('@');
  while (at !== -1) {
    let start = at;
    while (start > 0 && at - start < MAX_LOCAL_PART && isLocalPartChar(text.charCodeAt(start - 1))) start--;
    // Dots cannot start a local part; ". alice@x.io" style punctuation is not part of the address.
    while (start < at && text.charCodeAt(start) === 46) start++;
    let next = at + 1;
    if (start < at && !(start > 0 && isLocalPartChar(text.charCodeAt(start - 1)) && text.charCodeAt(start - 1) !== 46)) {
      EMAIL_DOMAIN_RE.lastIndex = at + 1;
      const m = EMAIL_DOMAIN_RE.exec(text);
      if (m && !FILE_EXTENSIONS.has(m[1]!.toLowerCase())) {
        next = at + 1 + m[0].length;
        sink.add(start, next);
      }
    }
    at = text.indexOf('@', next);
  }
}

// Three shapes, one pass:
//   1. international, "+" then 10-15 digits in groups (E.164 and its written forms: +1 (555) 123-4567, +44 20 7946 0958);
//   2. North American national: (555) 123-4567, 555-123-4567, 1-555-123-4567, 555.123.4567;
//   3. national with a trunk 0 and one consistent separator: 020 7946 0958, 01 23 45 67 89, 030-1234-5678.
// A run of bare digits is never a phone number: order ids, timestamps and amounts look the same.
const PHONE_RE = new RegExp(
  [
    String.raw`(?<![\w+])(\+[1-9](?:[ .\-]?(?:\d|\(\d{1,4}\))){3,16}(?![ .\-]?[\d(]))`,
    String.raw`(?<![\w+.\-])((?:1[ .\-])?(?:\(\d{3}\) ?|\d{3}[ .\-])\d{3}[ .\-]\d{4})(?![\w]|[.\-]\d)`,
    String.raw`(?<![\w+.\-])0\d{1,4}([ .\-])\d{2,8}(?:\3\d{2,8}){0,4}(?![\w]|[.\-]\d)`,
  ].join('|'),
  'g',
);

function countDigits(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) n++;
  }
  return n;
}

function digitsOf(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) out += text[i];
  }
  return out;
}

function findPhones(text: string, sink: SpanSink): void {
  PHONE_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = PHONE_RE.exec(text)) !== null) {
    const candidate = m[0];
    let valid: boolean;
    if (m[1] !== undefined) {
      const n = countDigits(candidate);
      valid = n >= 10 && n <= 15;
    } else if (m[2] !== undefined) {
      // The 3-3-4 grouping with separators is distinctive enough on its own. Area codes and exchanges
      // are not checked against NANP's 2-9 rule: 123-456-7890 is how people write a phone number for a test.
      valid = true;
    } else {
      const digits = digitsOf(candidate);
      // "00" starts an international call prefix, not a national number.
      valid = digits.length >= 10 && digits.length <= 12 && digits.charCodeAt(1) !== 48;
    }
    if (valid) sink.add(m.index, m.index + candidate.length);
  }
}

// The start of a run of digits, spaces and dashes at least 13 characters long; the lookbehind keeps a match
// from starting inside a longer run, so each run is read once, and code walks to its end. Neither pattern
// nor code backtracks: an unbounded loop in a pattern costs V8 one backtrack entry per repetition, and a run
// megabytes long would overflow its stack. Which 13-19 digits of the run form a card is decided in code.
const CARD_RUN_START_RE = /(?<!\w|\d[ -])\d[\d -]{11}/g;

function isDigitOrCardSeparator(c: number): boolean {
  return (c >= 48 && c <= 57) || c === 32 || c === 45;
}

function findCards(text: string, sink: SpanSink): void {
  CARD_RUN_START_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = CARD_RUN_START_RE.exec(text)) !== null) {
    const start = m.index;
    let end = start + m[0].length;
    while (end < text.length && isDigitOrCardSeparator(text.charCodeAt(end))) end++;
    CARD_RUN_START_RE.lastIndex = end;
    while (!isDigit(text.charCodeAt(end - 1))) end--;
    const run = text.slice(start, end);
    // The run must end at a word boundary: "4111111111111111abc" is an identifier.
    const endsClean = !isWordChar(text.charCodeAt(end));
    if (run.length <= 19 && !/[ -]/.test(run)) {
      if (endsClean && isCardNumber(run)) sink.add(start, end);
      continue;
    }
    findCardsInRun(run, start, endsClean, sink);
  }
}

/** Cards are printed in groups of 3 to 6 digits (4-4-4-4, 4-6-5); shorter groups around them are other numbers. */
const MIN_CARD_GROUP = 3;
const CARD_GROUP_RE = /(?:^|[ -])[2-6]\d\d/;

/**
 * A run of groups like "4111 1111 1111 1111 12 26" can hold a card among other numbers: try windows of
 * whole groups. Each window is at most 19 digits of groups of 3 or more, so a run costs a small constant per group.
 */
function findCardsInRun(run: string, offset: number, endsClean: boolean, sink: SpanSink): void {
  // Most long runs ("1 2 3", tables of small numbers) have no group that could open a card.
  if (!CARD_GROUP_RE.test(run)) return;
  const starts: number[] = [];
  const ends: number[] = [];
  let i = 0;
  while (i < run.length) {
    const s = i;
    while (i < run.length && run.charCodeAt(i) >= 48 && run.charCodeAt(i) <= 57) i++;
    starts.push(s);
    ends.push(i);
    i++; // the separator
  }
  let g = 0;
  while (g < starts.length) {
    const lead = run.charCodeAt(starts[g]!);
    // Every card network's numbers start with 2 to 6.
    if (lead < 50 || lead > 54 || ends[g]! - starts[g]! < MIN_CARD_GROUP) {
      g++;
      continue;
    }
    let digits = '';
    let best = -1;
    for (let e = g; e < starts.length && ends[e]! - starts[e]! >= MIN_CARD_GROUP; e++) {
      digits += run.slice(starts[e], ends[e]);
      if (digits.length > 19) break;
      if (digits.length >= 13 && isCardNumber(digits) && (e < starts.length - 1 || endsClean)) best = e;
    }
    if (best === -1) {
      g++;
      continue;
    }
    sink.add(offset + starts[g]!, offset + ends[best]!);
    g = best + 1;
  }
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isWordChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

// AAA-GG-SSSS (dashes or spaces, the same both times). Nine bare digits are left alone: too many other numbers look like that.
const SSN_RE = /(?<![\w+.-]|[\d+][ .-])(\d{3})([ -])(\d{2})\2(\d{4})(?![\w]|-\d)/g;

function findSsns(text: string, sink: SpanSink): void {
  SSN_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = SSN_RE.exec(text)) !== null) {
    if (isValidSsn(m[1]!, m[3]!, m[4]!)) sink.add(m.index, m.index + m[0].length);
  }
}

// Country code, check digits, then the BBAN in electronic form or printed in groups. The country's length
// decides where the IBAN ends; the mod-97 check decides whether it is one.
const IBAN_RE = /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}/g;

function findIbans(text: string, sink: SpanSink): void {
  IBAN_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = IBAN_RE.exec(text)) !== null) {
    const candidate = m[0];
    const length = IBAN_LENGTHS[candidate.slice(0, 2)];
    let end = -1;
    if (length !== undefined) {
      let compact = '';
      let i = 0;
      for (; i < candidate.length && compact.length < length; i++) if (candidate[i] !== ' ') compact += candidate[i];
      const after = m.index + i;
      if (compact.length === length && !isWordChar(text.charCodeAt(after)) && ibanChecksumValid(compact)) end = after;
    }
    if (end === -1) {
      // An IBAN may start later inside a rejected candidate ("ref AB12 DE89 3704 ...").
      IBAN_RE.lastIndex = m.index + 1;
      continue;
    }
    sink.add(m.index, end);
    IBAN_RE.lastIndex = end;
  }
}

// Written out rather than (?:\d{1,3}\.){3}: V8 runs the unrolled form about five times faster.
const IPV4_RE = /(?<![\w.])\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}(?![\w]|\.\d)/g;
const MAX_IPV6_LENGTH = 45;

function isHexDigit(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

function isIPv6Char(c: number): boolean {
  return isHexDigit(c) || c === 58 || c === 46;
}

/**
 * IPv6 candidates: every address has two colons at most five characters apart, so the scan jumps from
 * colon to colon (JSON text is full of single ones) and reads the run of hex digits, colons and dots around a pair.
 */
function findIPv6(text: string, starts: number[], ends: number[]): void {
  let colon = text.indexOf(':');
  while (colon !== -1) {
    let j = colon + 1;
    while (j < colon + 5 && isHexDigit(text.charCodeAt(j))) j++;
    if (text.charCodeAt(j) !== 58) {
      colon = text.indexOf(':', colon + 1);
      continue;
    }
    let start = colon;
    while (start > 0 && isIPv6Char(text.charCodeAt(start - 1))) start--;
    let end = j + 1;
    while (end < text.length && isIPv6Char(text.charCodeAt(end))) end++;
    colon = text.indexOf(':', end);
    // Part of a longer word or identifier ("std::vector", "tag:a:b_c"), or too long to be one address.
    if (isWordChar(text.charCodeAt(start - 1)) || isWordChar(text.charCodeAt(end)) || end - start > MAX_IPV6_LENGTH + 1) continue;
    while (text.charCodeAt(end - 1) === 46) end--;
    while (text.charCodeAt(start) === 46) start++;
    const candidate = text.slice(start, end);
    // Two written groups at least and a digit somewhere: "::1" is only loopback, and "Cafe::Bad" is code.
    if (ipv6Groups(candidate) < 2 || !/\d/.test(candidate)) continue;
    starts.push(start);
    ends.push(end);
  }
}

// Reused across calls (scans are synchronous) so a text without IPv6 allocates nothing.
const v6Starts: number[] = [];
const v6Ends: number[] = [];

function findIps(text: string, sink: SpanSink): void {
  // IPv6 first: an IPv4-embedded IPv6 address is one detection, not two.
  v6Starts.length = 0;
  v6Ends.length = 0;
  findIPv6(text, v6Starts, v6Ends);
  IPV4_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  let v6 = 0;
  while ((m = IPV4_RE.exec(text)) !== null) {
    const start = m.index;
    const end = start + m[0].length;
    if (!isIPv4(m[0])) continue;
    while (v6 < v6Starts.length && v6Ends[v6]! <= start) sink.add(v6Starts[v6]!, v6Ends[v6++]!);
    if (v6 < v6Starts.length && v6Starts[v6]! < end) continue;
    sink.add(start, end);
  }
  while (v6 < v6Starts.length) sink.add(v6Starts[v6]!, v6Ends[v6++]!);
}

// Provider key formats, as the providers document them. Each is anchored on a literal prefix so the
// engine only tries the rest where the prefix occurs.
// The lookbehind keeps a match from starting inside a longer token ("eyJeyJeyJ..." would otherwise be retried
// at every "eyJ"), which keeps the pass linear.
const SECRET_RE = new RegExp(
  String.raw`(?<![A-Za-z0-9_\-])(?:` +
    [
      String.raw`(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])`, // AWS access key id
      String.raw`gh[pousr]_[A-Za-z0-9]{36,251}(?![A-Za-z0-9_])`, // GitHub classic, OAuth, user-to-server, server-to-server, refresh
      String.raw`github_pat_[A-Za-z0-9_]{22,244}`, // GitHub fine-grained
      String.raw`xox[abposr]-[A-Za-z0-9\-]{10,250}`, // Slack
      String.raw`[sr]k_(?:live|test)_[A-Za-z0-9]{16,247}(?![A-Za-z0-9])`, // Stripe secret and restricted
      String.raw`sk-ant-[A-Za-z0-9_\-]{20,250}`, // Anthropic
      String.raw`(sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{32,250})`, // OpenAI (group 1: confirmed in code)
      String.raw`AIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])`, // Google API key
      String.raw`pb_(?:live|test)_[A-Za-z0-9_\-]{20,100}`, // Patchbay access key
      // JWT (group 2: header confirmed in code). Bounded segments keep V8's backtrack stack small on huge tokens.
      String.raw`(eyJ[A-Za-z0-9_\-]{4,4096})\.eyJ[A-Za-z0-9_\-]{4,65536}\.[A-Za-z0-9_\-]{0,4096}`,
    ].join('|') +
    ')',
  'g',
);

// The whole PEM block, also when the text is JSON-escaped ("\n" as two characters) or cut off before its END
// line (then up to the first character a key body cannot hold). The body is walked in code: as a pattern
// it would cost a backtrack entry per character.
const PEM_BEGIN = '-----BEGIN ';
const PEM_HEADER_RE = /-----BEGIN (?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)?-----/y;
const PEM_FOOTER_RE = /-----END (?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)?-----/y;

/** Base64, whitespace, escaped newlines, and what "Proc-Type: 4,ENCRYPTED" and "DEK-Info: AES-128-CBC,..." need. */
function isPemBodyChar(c: number): boolean {
  if (isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) return true;
  // + / = space \t-\r \ : , .
  return c === 43 || c === 47 || c === 61 || c === 32 || (c >= 9 && c <= 13) || c === 92 || c === 58 || c === 44 || c === 46;
}

function findPemBlocks(text: string, starts: number[], ends: number[]): void {
  let begin = text.indexOf(PEM_BEGIN);
  while (begin !== -1) {
    PEM_HEADER_RE.lastIndex = begin;
    if (!PEM_HEADER_RE.test(text)) {
      begin = text.indexOf(PEM_BEGIN, begin + 1);
      continue;
    }
    let end = PEM_HEADER_RE.lastIndex;
    for (;;) {
      const c = text.charCodeAt(end);
      // A single dash belongs to the body ("Proc-Type"); five start the END line or the next block.
      if (isPemBodyChar(c) || (c === 45 && !text.startsWith('----', end + 1))) end++;
      else break;
    }
    PEM_FOOTER_RE.lastIndex = end;
    if (PEM_FOOTER_RE.test(text)) end = PEM_FOOTER_RE.lastIndex;
    starts.push(begin);
    ends.push(end);
    begin = text.indexOf(PEM_BEGIN, end);
  }
}

/** A random key mixes digits, lower and upper case; "sk-my-feature-branch-name-for-2024-q3" does not. */
function looksRandom(text: string): boolean {
  return /\d/.test(text) && /[a-z]/.test(text) && /[A-Z]/.test(text);
}

function findSecrets(text: string, sink: SpanSink): void {
  let pemStarts: number[] | null = null;
  let pemEnds: number[] | null = null;
  if (text.includes(PEM_BEGIN)) {
    pemStarts = [];
    pemEnds = [];
    findPemBlocks(text, pemStarts, pemEnds);
  }
  SECRET_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  let p = 0;
  while ((m = SECRET_RE.exec(text)) !== null) {
    const start = m.index;
    const end = start + m[0].length;
    if (m[1] !== undefined && !looksRandom(m[1].slice(3))) {
      SECRET_RE.lastIndex = start + 1;
      continue;
    }
    if (m[2] !== undefined && !isJwtHeader(m[2])) {
      SECRET_RE.lastIndex = start + 1;
      continue;
    }
    while (pemStarts && p < pemStarts.length && pemEnds![p]! <= start) sink.add(pemStarts[p]!, pemEnds![p++]!);
    // Inside a PEM block: the block is already one detection.
    if (pemStarts && p < pemStarts.length && pemStarts[p]! < end) continue;
    sink.add(start, end);
  }
  while (pemStarts && p < pemStarts.length) sink.add(pemStarts[p]!, pemEnds![p++]!);
}

export const BUILTIN_DETECTORS: Readonly<Record<DetectorKind, BuiltinDetector>> = {
  SECRET: { kind: 'SECRET', rank: 7, needs: 0, minLength: 20, find: findSecrets },
  IBAN: { kind: 'IBAN', rank: 6, needs: FEATURE_DIGIT | FEATURE_UPPER, minLength: 15, find: findIbans },
  CREDIT_CARD: { kind: 'CREDIT_CARD', rank: 5, needs: FEATURE_13_DIGITS, minLength: 13, find: findCards },
  US_SSN: { kind: 'US_SSN', rank: 4, needs: FEATURE_9_DIGITS, minLength: 11, find: findSsns },
  EMAIL_ADDRESS: { kind: 'EMAIL_ADDRESS', rank: 3, needs: FEATURE_AT, minLength: 6, find: findEmails },
  IP_ADDRESS: { kind: 'IP_ADDRESS', rank: 2, needs: FEATURE_DIGIT | FEATURE_DOT_OR_COLON, minLength: 4, find: findIps },
  PHONE_NUMBER: { kind: 'PHONE_NUMBER', rank: 1, needs: FEATURE_10_DIGITS, minLength: 11, find: findPhones },
};

/** Feature bits of a text. Long texts are assumed to have them all: the detectors' own passes are cheaper there. */
export function featuresOf(text: string): number {
  if (text.length > 64) return ALL_FEATURES;
  let features = 0;
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) digits++;
    else if (c >= 65 && c <= 90) features |= FEATURE_UPPER;
    else if (c === 64) features |= FEATURE_AT;
    else if (c === 46 || c === 58) features |= FEATURE_DOT_OR_COLON;
  }
  if (digits > 0) features |= FEATURE_DIGIT;
  if (digits >= 9) features |= FEATURE_9_DIGITS;
  if (digits >= 10) features |= FEATURE_10_DIGITS;
  if (digits >= 13) features |= FEATURE_13_DIGITS;
  return features;
}
