/**
 * Text analysis shared by tool documents and intents, so both sides land on the same terms:
 * entity patterns become marker terms, identifiers split on snake_case and camelCase, fixed
 * phrases become one term, and words are stemmed lightly.
 */

export interface Token {
  /** The word (lower case), the phrase term ("pullrequest") or the marker of a recognized entity. */
  word: string;
  /** As written, for people: "pull request" for the phrase term, the word itself otherwise. */
  text: string;
  /** The term looked up in the index (stemmed word, phrase term or marker). */
  term: string;
  /** Position among all tokens, stop words included: the analyzer looks at neighbours. */
  position: number;
  stop: boolean;
  /** After the intent's first colon: usually the payload ("...in Jira: checkout times out"), not the request. */
  afterColon: boolean;
  /** Inside quotes: a value such as a title, not part of the request. */
  quoted: boolean;
  /** Written in capitals as an HTTP method (GET, POST...): names the method, not an action on the tool's object. */
  httpMethod: boolean;
  /** First word of the text or of a clause (after a comma, semicolon or full stop): where a request's verb stands. */
  clauseStart: boolean;
}

/**
 * Entities recognized before the text is split, each replaced by a marker word. Markers are
 * ordinary terms: the lexicon says what they suggest (an issue key suggests an issue, a `#name`
 * a channel). Order matters: URLs before paths, e-mail addresses before `owner/repo`.
 */
const ENTITY_PATTERNS: Array<{ guard: RegExp; pattern: RegExp; replacement: string | ((match: string) => string) }> = [
  { guard: /http/i, pattern: /\bhttps?:\/\/([^\s/]+)\S*/gi, replacement: (m) => ` urlmarker ${hostWords(m)} ` },
  { guard: /@/, pattern: /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, replacement: ' emailaddressmarker ' },
  { guard: /[A-Z0-9]-\d/, pattern: /\b[A-Z][A-Z0-9]{1,9}-\d+\b/g, replacement: ' issuekeymarker ' },
  { guard: /#/, pattern: /#\d+\b/g, replacement: ' numbermarker ' },
  { guard: /#/, pattern: /#[a-z][\w-]*/gi, replacement: ' channelmarker ' },
  { guard: /:/, pattern: /:[a-z0-9_+-]+:/gi, replacement: ' emojimarker ' },
  { guard: /1:1/, pattern: /\b1:1s?\b/gi, replacement: ' oneononemarker ' },
  { guard: /\d\s?[ap]m/i, pattern: /\b\d{1,2}(?::\d{2})?\s?(?:am|pm)\b/gi, replacement: ' clocktimemarker ' },
  { guard: /\//, pattern: /(^|\s)\/[\w\-./{}:]*/g, replacement: '$1 urlpathmarker ' },
  { guard: /\//, pattern: /\b[\w-]+(?:\/[\w.-]+)*\/[\w-]+\.[a-z0-9]{1,6}\b/gi, replacement: ' filepathmarker ' },
  { guard: /\//, pattern: /\b(?=[\w.-]*[a-z])[\w.-]+\/(?=[\w.-]*[a-z])[\w.-]*[a-z0-9]\b/gi, replacement: ' ownerrepomarker ' },
  // IDs such as 18c9a2b7f3e or U0123ABCD: letters and digits mixed, no spaces.
  { guard: /[a-z]\d|\d[a-z]/i, pattern: /\b(?=[a-z0-9]*\d)(?=[a-z0-9]*[a-z])[a-z0-9]{5,}\b/gi, replacement: ' identifiermarker ' },
  { guard: /\d/, pattern: /\b\d+\b/g, replacement: ' numbermarker ' },
];

function hostWords(url: string): string {
  const host = url.replace(/^https?:\/\//i, '').split(/[/?#]/)[0] ?? '';
  return host
    .split('.')
    .filter((part) => !['www', 'com', 'org', 'net', 'io', 'so', 'co', 'app'].includes(part.toLowerCase()))
    .join(' ');
}

/** Markers a user may type around, kept as they are by the stemmer. */
export const MARKERS = new Set([
  'urlmarker',
  'emailaddressmarker',
  'issuekeymarker',
  'numbermarker',
  'channelmarker',
  'emojimarker',
  'oneononemarker',
  'clocktimemarker',
  'urlpathmarker',
  'filepathmarker',
  'ownerrepomarker',
  'identifiermarker',
  'sqlmarker',
]);

const HTTP_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

/**
 * Words that carry no meaning for matching. Question words and a few prepositions are stop words
 * for the index but stay visible to the analyzer, which reads them as hints (`which` asks to list,
 * `about` asks to search).
 */
export const STOP_WORDS = new Set(
  (
    'a an the to of in on at for by from with into onto as and or but if then than so it its this that these those there here ' +
    'be is are was were been being am do does did have has had having i me my mine myself we us our ours you your yours he she ' +
    'they them their his her him please can could would should will shall may might must just also now right some any all each ' +
    'every what which who whom whose when where why how about up out over yet still whole very really too only own same other ' +
    'such both few more most no nor not dont do doesnt didnt im ill ive lets let get got gets s t re ve ll d e g eg ie via ' +
    'etc one thing things something anything everything want wanted need needs needed like know go going give gave next last latest recent upcoming'
  ).split(' '),
);

/** Multi-word expressions that mean one thing, applied to lower-case words before stemming. */
const PHRASES: Array<[string[], string]> = [
  // Contractions typed without the apostrophe.
  [['whats'], 'what'],
  [['whos'], 'who'],
  [['wheres'], 'where'],
  [['whens'], 'when'],
  [['hows'], 'how'],
  [['thats'], 'that'],
  [['theres'], 'there'],
  [['heres'], 'here'],
  [['prs'], 'pullrequest'],
  // Pagination boilerplate, so that "page" keeps meaning a document page.
  [['page', 'through'], 'paginate'],
  [['page', 'size'], 'pagesize'],
  [['per', 'page'], 'pagesize'],
  [['page', 'token'], 'pagetoken'],
  [['next', 'page'], 'nextpage'],
  [['pull', 'request'], 'pullrequest'],
  [['pull', 'requests'], 'pullrequest'],
  [['merge', 'request'], 'pullrequest'],
  [['merge', 'requests'], 'pullrequest'],
  [['direct', 'message'], 'dm'],
  [['direct', 'messages'], 'dm'],
  [['look', 'up'], 'lookup'],
  [['looking', 'up'], 'lookup'],
  [['look', 'for'], 'lookfor'],
  [['looking', 'for'], 'lookfor'],
  [['set', 'up'], 'setup'],
  [['thumbs', 'up'], 'thumbsup'],
  [['thumb', 'up'], 'thumbsup'],
  [['time', 'zone'], 'timezone'],
  [['time', 'zones'], 'timezone'],
  [['in', 'progress'], 'inprogress'],
  [['in', 'review'], 'inreview'],
  [['catch', 'me', 'up'], 'catchup'],
  [['catch', 'up'], 'catchup'],
  [['follow', 'up'], 'followup'],
  [['sign', 'up'], 'signup'],
  [['sign', 'ups'], 'signup'],
  [['signups'], 'signup'],
  [['sub', 'issue'], 'subissue'],
  [['sub', 'issues'], 'subissue'],
  [['read', 'only'], 'readonly'],
  [['how', 'many'], 'howmany'],
  [['knowledge', 'base'], 'wiki'],
  [['e', 'mail'], 'email'],
  [['e', 'mails'], 'email'],
  [['google', 'meet'], 'meet'],
  [['job', 'title'], 'jobtitle'],
  [['first', 'name'], 'firstname'],
  [['last', 'name'], 'lastname'],
  [['lifecycle', 'stage'], 'lifecyclestage'],
  [['phone', 'number'], 'phone'],
  [['close', 'date'], 'closedate'],
  [['close', 'dates'], 'closedate'],
  [['foreign', 'key'], 'foreignkey'],
  [['foreign', 'keys'], 'foreignkey'],
  [['primary', 'key'], 'primarykey'],
  [['execution', 'plan'], 'plan'],
  [['query', 'plan'], 'plan'],
  [['default', 'branch'], 'defaultbranch'],
  [['not', 'planned'], 'notplanned'],
  [['on', 'behalf', 'of'], 'onbehalf'],
  [['all', 'day'], 'allday'],
  [['as', 'read'], 'readstate'],
  [['as', 'unread'], 'unread'],
  [['mark', 'read'], 'mark readstate'],
  [['mark', 'unread'], 'mark unread'],
  [['block', 'out'], 'blockout'],
  [['let', 'know'], 'letknow'],
  [['tell', 'me'], 'tellme'],
  [['show', 'me'], 'show'],
  [['give', 'me'], 'show'],
  [['what', 'is'], 'what'],
  [['is', 'there'], 'isthere'],
  [['are', 'there'], 'isthere'],
  [['do', 'i', 'have'], 'isthere'],
  [['rest', 'api'], 'restapi'],
  [['user', 'id'], 'userid'],
  [['team', 'id'], 'teamid'],
  [['project', 'key'], 'projectkey'],
  [['team', 'key'], 'teamkey'],
];

const phraseIndex = new Map<string, Array<[string[], string]>>();
for (const entry of PHRASES) {
  const first = entry[0][0]!;
  const list = phraseIndex.get(first) ?? [];
  list.push(entry);
  // Longest first, so "catch me up" wins over "catch up".
  list.sort((a, b) => b[0].length - a[0].length);
  phraseIndex.set(first, list);
}

/**
 * A light English stemmer: plurals, -ing, -ed and a final e, so "schedule", "scheduled" and
 * "scheduling" meet. Much lighter than Porter on purpose: it must not merge words the lexicon
 * keeps apart (status/state, user/use).
 */
export function stem(word: string): string {
  const cached = stemCache.get(word);
  if (cached !== undefined) return cached;
  const stemmed = stemUncached(word);
  // The vocabulary of tools and intents is small; the bound only guards against odd input.
  if (stemCache.size < STEM_CACHE_LIMIT) stemCache.set(word, stemmed);
  return stemmed;
}

const STEM_CACHE_LIMIT = 50_000;
const stemCache = new Map<string, string>();

function stemUncached(word: string): string {
  if (word.length <= 3 || MARKERS.has(word) || /\d/.test(word)) return word;
  let w = word;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('ches') || w.endsWith('shes') || w.endsWith('xes')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);

  if (w.endsWith('ing') && w.length >= 6) w = undouble(w.slice(0, -3));
  else if (w.endsWith('ied') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('ed') && !w.endsWith('eed') && w.length >= 5) w = undouble(w.slice(0, -2));

  if (w.endsWith('e') && w.length > 3 && !w.endsWith('ee')) w = w.slice(0, -1);
  return w;
}

function undouble(w: string): string {
  const last = w[w.length - 1];
  if (w.length > 3 && last === w[w.length - 2] && last !== undefined && !'lsz'.includes(last) && /[bcdfghjkmnpqrtvwx]/.test(last)) {
    return w.slice(0, -1);
  }
  return w;
}

/**
 * Splits identifiers: `list_pull_requests` → list pull requests, `threadTs` → thread ts. Only words
 * that start in lower case are camelCase identifiers: HubSpot, GitHub and PostgreSQL are names.
 */
export function splitIdentifiers(text: string): string {
  if (!/[a-z0-9][A-Z]|_/.test(text)) return text;
  return text
    .replace(/\b[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+\b/g, (m) => m.replace(/([a-z0-9])([A-Z])/g, '$1 $2'))
    .replace(/[_]+/g, ' ');
}

/**
 * Turns text into tokens. Stop words are kept (flagged) so the intent analyzer can read them;
 * the index skips them.
 */
export function tokenize(text: string): Token[] {
  let working = text;
  if (/\bselect\b[\s\S]+\bfrom\b/i.test(working)) working = `${working} sqlmarker`;

  // Quoted spans and the part after the first colon are marked by character ranges, before entity
  // rewriting shifts positions: mark them with sentinels instead.
  if (/["“]/.test(working)) working = working.replace(/"[^"]*"|“[^”]*”/g, (m) => ` \u0001 ${m.slice(1, -1)} \u0002 `);
  const colon = findRequestColon(working);
  if (colon >= 0) working = `${working.slice(0, colon)} \u0003 ${working.slice(colon + 1)}`;

  // HTTP methods in capitals are a different thing from the verbs "get" or "delete".
  working = working.replace(/\b[A-Z]{3,7}\b/g, (m) => (HTTP_METHODS.has(m) ? ` httpmethod${m.toLowerCase()} ` : m));

  // The guards are cheap tests that skip a pattern which cannot match: most texts have no @ or /.
  for (const { guard, pattern, replacement } of ENTITY_PATTERNS) {
    if (!guard.test(working)) continue;
    working = typeof replacement === 'string' ? working.replace(pattern, replacement) : working.replace(pattern, replacement);
  }
  working = splitIdentifiers(working).toLowerCase();
  // Clause breaks, after the entities (whose dots are gone by now): a verb may start the next clause.
  working = working.replace(/[,;!?]|\.(?=\s|$)/g, ' \u0004 ');
  // Possessives and contractions: "Laura's" → laura, "what's" → what, "don't" → dont.
  working = working.replace(/['’]s\b/g, '').replace(/n['’]t\b/g, 'nt').replace(/['’](ll|re|ve|d|m)\b/g, '');

  // The sentinels were written with spaces around them, so they come out as words of their own.
  const rawWords = working.split(/[^a-z0-9\u0001-\u0004]+/).filter((w) => w.length > 0);

  const tokens: Token[] = [];
  let quoted = false;
  let afterColon = false;
  let position = 0;
  let clauseStart = true;
  for (let i = 0; i < rawWords.length; i++) {
    const word = rawWords[i]!;
    if (word === '\u0004') {
      clauseStart = true;
      continue;
    }
    if (word === '\u0001') {
      quoted = true;
      continue;
    }
    if (word === '\u0002') {
      quoted = false;
      continue;
    }
    if (word === '\u0003') {
      afterColon = true;
      continue;
    }
    const phrase = matchPhrase(rawWords, i);
    if (phrase) {
      const parts = phrase.replacement.split(' ');
      for (const part of parts) {
        const token = makeToken(part, position++, quoted, afterColon, clauseStart);
        if (parts.length === 1) token.text = rawWords.slice(i, i + phrase.length).join(' ');
        tokens.push(token);
        clauseStart = false;
      }
      i += phrase.length - 1;
      continue;
    }
    tokens.push(makeToken(word, position++, quoted, afterColon, clauseStart));
    clauseStart = false;
  }
  return tokens;
}

function makeToken(word: string, position: number, quoted: boolean, afterColon: boolean, clauseStart: boolean): Token {
  if (word.startsWith('httpmethod')) {
    const method = word.slice('httpmethod'.length);
    return { word: method, text: method.toUpperCase(), term: 'httpmethod', position, stop: false, afterColon, quoted, httpMethod: true, clauseStart };
  }
  const stop = STOP_WORDS.has(word);
  return { word, text: word, term: stop ? word : stem(word), position, stop, afterColon, quoted, httpMethod: false, clauseStart };
}

function matchPhrase(words: string[], start: number): { replacement: string; length: number } | null {
  const candidates = phraseIndex.get(words[start]!);
  if (!candidates) return null;
  for (const [parts, replacement] of candidates) {
    if (parts.every((part, k) => words[start + k] === part)) return { replacement, length: parts.length };
  }
  return null;
}

/**
 * The colon that separates a request from its payload ("log a bug in Jira: checkout times out"),
 * not one inside a time, URL, emoji or query ("10:30", "https://", ":eyes:", "is:open").
 */
function findRequestColon(text: string): number {
  const re = /:(?=\s)/g;
  let match: RegExpExecArray | null;
  while ((match = re.exec(text)) !== null) {
    const before = text.slice(0, match.index);
    // An emoji's closing colon (":eyes:") is not a separator.
    if (/:[a-z0-9_+-]+$/i.test(before)) continue;
    return match.index;
  }
  return -1;
}
