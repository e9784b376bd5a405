/**
 * Reads an intent: the terms to look for (each with the other words it may be written as), the
 * actions it asks for, and hints about whether it wants one item, a list or a search.
 */
import { CLAUSE_STARTS, CONTENTLESS_VERBS, NEGATIONS, OPEN_READS_BEFORE, SYNONYMS, VERBS, type ActionClass, type ReadKind } from './lexicon';
import { stem, tokenize, type Token } from './text';

export interface Alternative {
  term: string;
  /** How close to the intent's own word, 0 to 1 (1 for the word itself). */
  closeness: number;
}

/** One word of the intent to look for. */
export interface TermGroup {
  /** As the user wrote it (or the entity it stands for), for the reasoning. */
  word: string;
  term: string;
  /** Weight of the group in the score: lower for verbs (the action class scores them) and payload. */
  weight: number;
  alternatives: Alternative[];
  isVerb: boolean;
}

export interface IntentAction {
  action: ActionClass;
  readKind?: ReadKind;
  /** 1 for the request's first verb, less for later ones ("summarize X and post it"). */
  weight: number;
  word: string;
}

export interface AnalyzedIntent {
  groups: TermGroup[];
  actions: IntentAction[];
  /** How strongly the intent suggests each kind of reading tool. */
  readKinds: Partial<Record<ReadKind, number>>;
  /** Stemmed content terms, to find named connectors. */
  terms: Set<string>;
  /** Objects the intent points at one by one ("the invoices table"): see definiteSingulars. */
  definite: Set<string>;
}

const VERB_WEIGHT = 0.8;
const CONTENTLESS_VERB_WEIGHT = 0.15;
const PAYLOAD_WEIGHT = 0.2;
/** "the message the bot posted": a verb in the past describes the thing, it does not ask for anything. */
const DESCRIPTIVE_WEIGHT = 0.3;
const QUOTED_WEIGHT = 0.2;
const SECONDARY_ACTION_WEIGHT = 0.5;
/** Entity markers (an e-mail address, a #channel) hint at the object; they are not words of the request. */
const MARKER_WEIGHT = 0.5;
/** The head of the first verb's object ("open a support *ticket* for ..."): what the tool must act on. */
const OBJECT_WEIGHT = 1.4;
const QUESTION_ACTION_WEIGHT = 0.8;

/** Markers of a single item named by its id: a key, an ID, a URL (numbers depend on their neighbours). */
const IDENTIFIER_TERMS = new Set(['issuekeymarker', 'identifiermarker', 'urlmarker']);
/** Markers that only serve as hints: as words they match every schema that mentions "1 to 100". */
const HINT_ONLY_TERMS = new Set(['numbermarker']);
/** Words before a number that make it a count ("top 10", "last 20 messages"), not an ID. */
const COUNT_WORDS = new Set(['top', 'last', 'first', 'next', 'latest', 'recent', 'past', 'bottom', 'up', 'over', 'under', 'about', 'around', 'to', 'at', 'than', 'every', 'each', 'for', 'in', 'within']);
const SEARCH_CUES = new Set(['about', 'mentioning', 'mention', 'containing', 'contain', 'matching', 'match', 'where', 'with', 'from', 'like', 'regarding', 'named', 'called', 'titled', 'isthere', 'when', 'whether']);
const LIST_CUES = new Set(['all', 'every', 'which', 'list', 'any', 'next', 'last', 'latest', 'recent', 'upcoming', 'isthere', 'when']);
const QUESTION_WORDS = new Set(['what', 'which', 'who', 'whose', 'when', 'where', 'did', 'does', 'is', 'are', 'any', 'isthere', 'howmany']);
/** Words that introduce what a message or search is about: what follows is payload, not request. */
const TOPIC_MARKERS = new Set(['about', 'regarding', 'saying', 'says', 'stating', 'mentioning', 'containing', 're']);
/** "that" before these starts a reported clause ("tell them that the deploy is done"), not a noun phrase ("that email"). */
const REPORTED_CLAUSE_STARTS = new Set(['the', 'she', 'he', 'we', 'i', 'it', 'they', 'you', 'our', 'my', 'his', 'her', 'their', 'a', 'an', 'there', 'this']);
/** A clause opened by these is a question: its other verbs describe what happened ("did Ana reply"), they ask for nothing. */
const QUESTION_OPENERS = new Set(['did', 'does', 'do', 'has', 'have', 'had', 'was', 'were', 'is', 'are', 'isthere', 'what', 'which', 'who', 'whose', 'when', 'where', 'why', 'howmany', 'how']);
const IRREGULAR_PAST = new Set(['sent', 'wrote', 'written', 'made', 'ran', 'done', 'got', 'gave', 'told', 'put', 'left', 'began', 'took']);

export function analyzeIntent(intent: string): AnalyzedIntent {
  const tokens = tokenize(intent);
  const actions = findActions(tokens);
  const verbPositions = new Set(actions.map((a) => a.position));
  const topical = topicalPositions(tokens);
  const inQuestion = questionPositions(tokens);
  const objectHead = objectHeadPosition(tokens, actions);

  const byTerm = new Map<string, TermGroup>();
  const terms = new Set<string>();
  for (const token of tokens) {
    if (token.stop || HINT_ONLY_TERMS.has(token.term)) continue;
    const isVerb = verbPositions.has(token.position);
    let weight = isVerb ? (CONTENTLESS_VERBS.has(token.term) ? CONTENTLESS_VERB_WEIGHT : VERB_WEIGHT) : token.term.endsWith('marker') ? MARKER_WEIGHT : token.position === objectHead ? OBJECT_WEIGHT : 1;
    if (token.quoted) weight = Math.min(weight, QUOTED_WEIGHT);
    else if (token.afterColon || topical.has(token.position)) weight = Math.min(weight, PAYLOAD_WEIGHT);
    if (!isVerb && (isDescriptivePast(token) || (inQuestion.has(token.position) && VERBS.has(token.term) && !VERBS.get(token.term)!.leadingOnly))) weight = Math.min(weight, DESCRIPTIVE_WEIGHT);
    terms.add(token.term);
    const existing = byTerm.get(token.term);
    if (existing) {
      existing.weight = Math.max(existing.weight, weight);
      existing.isVerb &&= isVerb;
      continue;
    }
    const alternatives: Alternative[] = [{ term: token.term, closeness: 1 }];
    for (const [term, closeness] of SYNONYMS.get(token.term) ?? []) alternatives.push({ term, closeness });
    byTerm.set(token.term, { word: displayWord(token), term: token.term, weight, alternatives, isVerb });
  }

  return {
    groups: [...byTerm.values()],
    actions: actions.map(({ position: _position, ...action }) => action),
    readKinds: readKindHints(tokens, actions),
    terms,
    definite: definiteSingulars(tokens),
  };
}

const MARKER_WORDS: Record<string, string> = {
  urlmarker: 'a URL',
  emailaddressmarker: 'an e-mail address',
  issuekeymarker: 'an issue key',
  numbermarker: 'a number',
  channelmarker: 'a #channel',
  emojimarker: 'an :emoji:',
  oneononemarker: '1:1',
  clocktimemarker: 'a time of day',
  urlpathmarker: 'a URL path',
  filepathmarker: 'a file path',
  ownerrepomarker: 'an owner/repo',
  identifiermarker: 'an ID',
  sqlmarker: 'a SQL statement',
};

function displayWord(token: Token): string {
  return MARKER_WORDS[token.word] ?? token.text;
}

interface FoundAction extends IntentAction {
  position: number;
}

/**
 * Positions of payload words inside the request: after "about", "saying", a reported "that" or
 * "let ... know", up to the end of the clause. "email Bob that the report is ready": report and
 * ready say what to write, not which tool writes it.
 */
function topicalPositions(tokens: Token[]): Set<number> {
  const positions = new Set<number>();
  let inTopic = false;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.clauseStart) inTopic = false;
    if (inTopic) positions.add(token.position);
    const next = tokens[i + 1];
    if (TOPIC_MARKERS.has(token.word)) inTopic = true;
    else if (token.word === 'that' && next && REPORTED_CLAUSE_STARTS.has(next.word) && i > 0 && !['to', 'on', 'in', 'from', 'of', 'at', 'with', 'for'].includes(tokens[i - 1]!.word)) inTopic = true;
    else if (token.word === 'know' && tokens.slice(0, i).some((t) => t.word === 'let')) inTopic = true;
  }
  return positions;
}

/** Stop words that may stand inside a noun phrase; any other stop word ends it. */
const NOUN_PHRASE_WORDS = new Set(['a', 'an', 'the', 'my', 'our', 'your', 'their', 'his', 'her', 'its', 'this', 'that', 'these', 'those', 'some', 'all', 'any', 'every', 'each', 'new', 'other', 'same']);

/**
 * The last content word of the noun phrase right after the request's first verb: "file a *bug*",
 * "send a Slack *message* to the team", "open a support *ticket* for customer ...". Null when the
 * verb is followed by a preposition ("post in #general") or there is no verb.
 */
function objectHeadPosition(tokens: Token[], actions: FoundAction[]): number | null {
  const verb = actions[0];
  if (!verb) return null;
  const start = tokens.findIndex((t) => t.position === verb.position);
  let head: number | null = null;
  for (let i = start + 1; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.clauseStart || token.afterColon || token.quoted) break;
    if (token.stop) {
      if (NOUN_PHRASE_WORDS.has(token.word)) continue;
      break;
    }
    if (VERBS.has(token.term) && !VERBS.get(token.term)!.leadingOnly) break;
    if (!token.term.endsWith('marker')) head = token.position;
  }
  return head;
}

function isDescriptivePast(token: Token): boolean {
  if (token.clauseStart) return false;
  const past = IRREGULAR_PAST.has(token.word) || (token.word.endsWith('ed') && token.term !== token.word);
  return past && (VERBS.has(token.term) || IRREGULAR_PAST.has(token.word));
}

/** Positions of the words inside a question clause, after its opening word. */
function questionPositions(tokens: Token[]): Set<number> {
  const positions = new Set<number>();
  let inQuestion = false;
  for (const token of tokens) {
    if (token.clauseStart) {
      inQuestion = QUESTION_OPENERS.has(token.word);
      continue;
    }
    if (inQuestion) positions.add(token.position);
  }
  return positions;
}

function findActions(tokens: Token[]): FoundAction[] {
  const found: FoundAction[] = [];
  const inQuestion = questionPositions(tokens);
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.quoted || token.afterColon || token.httpMethod || inQuestion.has(token.position)) continue;
    const sense = verbSense(tokens, i);
    if (!sense) continue;
    const previous = tokens[i - 1];
    const beforePrevious = tokens[i - 2];
    if ((previous && NEGATIONS.has(previous.word)) || (beforePrevious && NEGATIONS.has(beforePrevious.word) && previous?.stop)) continue;
    const question = QUESTION_WORDS.has(token.word);
    const weight = found.length === 0 ? (question ? QUESTION_ACTION_WEIGHT : 1) : question ? 0 : SECONDARY_ACTION_WEIGHT;
    if (weight === 0) continue;
    // A question word then a real verb ("which calendars can I add events to"): the question leads.
    found.push({ ...sense, weight, word: token.word, position: token.position });
  }
  return found;
}

function verbSense(tokens: Token[], i: number): { action: ActionClass; readKind?: ReadKind } | null {
  const token = tokens[i]!;
  const next = tokens[i + 1];
  const leading = token.clauseStart || (i > 0 && CLAUSE_STARTS.has(tokens[i - 1]!.word));
  if (token.word === 'let' && leading && tokens.slice(i + 1, i + 8).some((t) => t.word === 'know')) return { action: 'create' };
  if (token.word === 'open') {
    if (next && OPEN_READS_BEFORE.has(next.word)) return { action: 'read', readKind: 'get' };
    if (next && ['a', 'an', 'new'].includes(next.word)) return { action: 'create' };
    return null;
  }
  const sense = VERBS.get(token.stop ? token.word : token.term) ?? VERBS.get(stem(token.word));
  if (!sense) return null;
  if (sense.leadingOnly && !leading) return null;
  return sense.readKind ? { action: sense.action, readKind: sense.readKind } : { action: sense.action };
}

const MAX_READ_KIND_HINT = 2.5;

/** "issue 57", "#482", "ticket 881": an ID. "top 10 customers", "a 30 minute call": a count. */
function isIdNumber(tokens: Token[], i: number): boolean {
  const previous = tokens[i - 1];
  const next = tokens[i + 1];
  if (previous && COUNT_WORDS.has(previous.word)) return false;
  if (next && !next.stop && next.term !== 'numbermarker' && !next.clauseStart && isPlural(next)) return false;
  if (next && ['minute', 'minutes', 'hour', 'hours', 'day', 'days', 'week', 'weeks', 'min', 'mins'].includes(next.word)) return false;
  return !!previous && !previous.stop;
}

function isPlural(token: Token): boolean {
  return token.text.length > 2 && /[^su]s$/.test(token.text) && token.term !== token.text && !VERBS.has(token.term);
}

const DETERMINERS = new Set(['the', 'this', 'that', 'my', 'our', 'your', 'their', 'his', 'her', 'its']);

/**
 * Terms of singular nouns in a definite noun phrase ("the invoices *table*", "that *email*"),
 * with their close synonyms: the intent points at one item, as an ID would, only less surely.
 */
function definiteSingulars(tokens: Token[]): Set<string> {
  const found = new Set<string>();
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.stop || token.quoted || token.afterColon || isPlural(token) || token.term.endsWith('marker')) continue;
    const next = tokens[i + 1];
    // Only the last noun of the phrase: "the invoices table" points at a table.
    if (next && !next.stop && !next.clauseStart && !next.term.endsWith('marker')) continue;
    let j = i - 1;
    while (j >= 0 && !tokens[j]!.stop && !tokens[j]!.clauseStart) j--;
    const before = tokens[j];
    if (!before || !DETERMINERS.has(before.word) || tokens[j + 1]?.clauseStart) continue;
    found.add(token.term);
    for (const [term, closeness] of SYNONYMS.get(token.term) ?? []) if (closeness >= 0.8) found.add(term);
  }
  return found;
}

function readKindHints(tokens: Token[], actions: FoundAction[]): Partial<Record<ReadKind, number>> {
  const hints: Partial<Record<ReadKind, number>> = {};
  const add = (kind: ReadKind, amount: number) => {
    hints[kind] = Math.min(MAX_READ_KIND_HINT, (hints[kind] ?? 0) + amount);
  };
  const primary = actions[0];
  if (primary?.readKind) add(primary.readKind, 1);
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.quoted || token.afterColon) continue;
    if (IDENTIFIER_TERMS.has(token.term) || (token.term === 'numbermarker' && isIdNumber(tokens, i))) add('get', 1.5);
    if (SEARCH_CUES.has(token.word)) add('search', 0.5);
    if (LIST_CUES.has(token.word)) add('list', 0.5);
    // "what's on my calendar", "what's in the folder": the contents of a container.
    if (token.word === 'what' && ['on', 'in', 'inside'].includes(tokens[i + 1]?.word ?? '')) add('list', 1);
    // A plural object ("tickets", "leads") asks for several items.
    if (!token.stop && isPlural(token)) {
      add('list', 0.3);
      add('search', 0.3);
    }
  }
  return hints;
}
