import { analyzeIntent, type AnalyzedIntent, type TermGroup } from './analyze-intent';
import { humanName } from './human-name';
import { CONNECTOR_ALIASES, CONNECTOR_KEYWORDS, GENERIC_CONNECTOR_WORDS, GENERIC_NAME_WORDS, TOOL_VERBS, WEAK_ALIAS_STRENGTH, type ActionClass, type ReadKind } from './lexicon';
import { explainHit, type HitExplanation } from './reasoning';
import { STOP_WORDS, splitIdentifiers, stem, tokenize } from './text';

/** A tool as search sees it: a built-in catalog tool or a custom MCP server's tool. */
export interface SearchableTool {
  /** `<connector_slug>__<name>`, as tools/list names it. */
  fully_qualified_name: string;
  connector_slug: string;
  connector_name: string;
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

export interface SearchHit {
  tool: SearchableTool;
  /** In [0, 1]: 1 - exp(-score / SCORE_SCALE), so it reads the same across intents; see the README. */
  relevance_score: number;
  /** Why the tool matched, in words. */
  reasoning: string;
  /** "Send message (Gmail)". */
  human_name: string;
}

export interface SearchOptions {
  /** 1 to 50 at the HTTP layer; default 10. */
  maxResults?: number;
  /** Only tools of these connectors; absent or empty means all. */
  connectorSlugs?: string[];
}

export interface SearchResult {
  hits: SearchHit[];
  /** How many tools matched the intent at all (after the connector filter, before max_results). */
  total_results: number;
}

export type FieldName = 'name' | 'head' | 'connector' | 'lead' | 'rest' | 'params';
const FIELDS: FieldName[] = ['name', 'head', 'connector', 'lead', 'rest', 'params'];

/**
 * How much a term found in each field counts (BM25F field weights): the tool's name says what it
 * does, its connector which product, the first sentence of the description what it is for; the
 * rest of the description and the parameters add detail (and noise).
 */
const FIELD_WEIGHTS: Record<FieldName, number> = { name: 3, head: 1.5, connector: 1.6, lead: 1.4, rest: 0.5, params: 0.35 };
/** Length normalization per field (BM25's b). */
const FIELD_B: Record<FieldName, number> = { name: 0.3, head: 0, connector: 0.3, lead: 0.6, rest: 0.6, params: 0.5 };
const K1 = 1.2;

/** Points for the action of the intent against the action of the tool, per unit of action weight. */
const ACTION_POINTS: Record<ActionClass, Record<ActionClass, number>> = {
  read: { read: 1, create: -0.7, change: -0.7, delete: -1.6, execute: 0.6 },
  create: { read: -0.7, create: 1, change: -0.2, delete: -1.3, execute: 0.3 },
  change: { read: -0.7, create: -0.3, change: 1, delete: -0.8, execute: 0.3 },
  delete: { read: -0.9, create: -0.7, change: -0.1, delete: 1, execute: 0.3 },
  execute: { read: 0.5, create: -0.2, change: -0.2, delete: -0.8, execute: 1 },
};
/**
 * Points of the structural signals, next to the lexical score (where one strong word match is
 * worth about 2 to 4). Tuned on the dev split of the labelled set only.
 */
export const RANKING_WEIGHTS = {
  /** Per unit of ACTION_POINTS. */
  action: 2,
  /** Per unit of read-kind hint (one item, a list, a search). */
  readKind: 2,
  /** When the intent names the tool's connector ("in Jira"). */
  connectorMention: 1.5,
  /** When the intent mentions everything the tool's name is about (less for part of it). */
  nameCoverage: 1.2,
};
const LIST_SEARCH_OVERLAP = 0.6;
/** Read-kind hint of a definite singular object, against 1.5 for an ID. */
const DEFINITE_OBJECT_HINT = 0.5;
/** A name word counts as mentioned when an intent word of at least this weight reaches it this closely. */
const COVERAGE_MIN_WEIGHT = 0.5;
const COVERAGE_MIN_CLOSENESS = 0.5;
/**
 * relevance_score = 1 - exp(-score / SCORE_SCALE). On the labelled set a typical best hit scores about
 * 15 (0.84), the tenth hit about 5 (0.45), one incidental word about 2 (0.22).
 */
export const SCORE_SCALE = 8;

/** What the index needs to know of one tool, whatever the other tools: computed once per tool definition. */
interface ToolAnalysis {
  humanName: string;
  fieldTf: Record<FieldName, Map<string, number>>;
  fieldLength: Record<FieldName, number>;
  /** Terms present in each field, for the reasoning. */
  fieldTerms: Record<FieldName, Set<string>>;
  /** Stemmed term → the word as the tool writes it. */
  surface: Array<[string, string]>;
  action: ActionClass | null;
  readKind: ReadKind | null;
  lead: string;
  /** Stemmed words of the name that say what the tool is about (not get, list, create...). */
  nameTopics: string[];
}

interface ToolDocument extends ToolAnalysis {
  tool: SearchableTool;
  /** BM25F score of each of its terms in this index (IDF depends on the other tools), for the reasoning. */
  termScores: Map<string, number>;
}

/** One candidate of a search, with the parts of its raw score (for tuning and tests). */
export interface ScoredTool {
  tool: SearchableTool;
  /** Position of the tool in the index. */
  doc: number;
  score: number;
  parts: { lexical: number; action: number; readKind: number; nameCoverage: number; connector: number };
}

interface Posting {
  doc: number;
  /** BM25F score of the term for the document: query-independent, so computed once. */
  score: number;
}

interface ConnectorAlias {
  slug: string;
  strength: number;
}

/**
 * An index of the tools one tool pack shows one user. Text analysis of each tool definition is
 * cached across indexes, so after the first build a new index over the same definitions (any
 * subset of them) costs about a millisecond for the whole catalog; a search, tens of microseconds.
 * `pnpm bench search` measures both.
 */
export class ToolIndex {
  private readonly docs: ToolDocument[];
  private readonly postings = new Map<string, Posting[]>();
  /** Stemmed term → a word as the tools write it, for readable reasoning. */
  private readonly surface = new Map<string, string>();
  private readonly aliases = new Map<string, ConnectorAlias[]>();
  private readonly connectorNames = new Map<string, string>();

  constructor(tools: SearchableTool[]) {
    for (const tool of tools) this.connectorNames.set(tool.connector_slug, tool.connector_name);

    const analyses = tools.map(analyzeToolCached);
    this.docs = tools.map((tool, i) => {
      const analysis = analyses[i]!;
      for (const [term, text] of analysis.surface) if (!this.surface.has(term)) this.surface.set(term, text);
      return { ...analysis, tool, termScores: new Map<string, number>() };
    });

    this.buildPostings(
      analyses.map((a) => a.fieldTf),
      analyses.map((a) => a.fieldLength),
    );
    this.buildAliases(tools);
  }

  get size(): number {
    return this.docs.length;
  }

  /** Every matching tool with its score and the parts of it, best first. */
  rank(intent: string, connectorSlugs?: string[]): { analyzed: AnalyzedIntent; scored: ScoredTool[]; mentioned: Map<string, number> } {
    const filter = connectorSlugs && connectorSlugs.length > 0 ? new Set(connectorSlugs) : null;
    const analyzed = analyzeIntent(intent);
    const n = this.docs.length;

    const lexical = new Float64Array(n);
    // A document matches when a word that is not only a verb matches, or, for an intent of verbs alone, any word.
    const contentMatch = new Uint8Array(n);
    const anyMatch = new Uint8Array(n);
    const best = new Float64Array(n);
    const hasContentGroup = analyzed.groups.some((g) => !g.isVerb);
    for (const group of analyzed.groups) {
      best.fill(0);
      for (const alternative of group.alternatives) {
        const postings = this.postings.get(alternative.term);
        if (!postings) continue;
        for (const posting of postings) {
          const value = alternative.closeness * posting.score;
          if (value > best[posting.doc]!) best[posting.doc] = value;
        }
      }
      for (let d = 0; d < n; d++) {
        const value = best[d]!;
        if (value <= 0) continue;
        lexical[d]! += group.weight * value;
        anyMatch[d] = 1;
        if (!group.isVerb) contentMatch[d] = 1;
      }
    }

    const mentioned = this.mentionedConnectors(analyzed);
    const reached = reachedTerms(analyzed);
    const scored: ScoredTool[] = [];
    for (let d = 0; d < n; d++) {
      const doc = this.docs[d]!;
      if (filter && !filter.has(doc.tool.connector_slug)) continue;
      if (!(hasContentGroup ? contentMatch[d] : anyMatch[d])) continue;
      const parts = {
        lexical: lexical[d]!,
        action: actionPoints(analyzed, doc),
        readKind: readKindPoints(analyzed, doc),
        nameCoverage: nameCoveragePoints(reached, doc),
        connector: (mentioned.get(doc.tool.connector_slug) ?? 0) * RANKING_WEIGHTS.connectorMention,
      };
      scored.push({ tool: doc.tool, doc: d, score: parts.lexical + parts.action + parts.readKind + parts.nameCoverage + parts.connector, parts });
    }
    // Ties (rare) fall back to the name, so the same intent always gives the same order.
    scored.sort((a, b) => b.score - a.score || a.tool.fully_qualified_name.localeCompare(b.tool.fully_qualified_name));
    return { analyzed, scored, mentioned };
  }

  search(intent: string, options: SearchOptions = {}): SearchResult {
    const maxResults = options.maxResults ?? 10;
    const { analyzed, scored, mentioned } = this.rank(intent, options.connectorSlugs);
    const hits = scored.slice(0, Math.max(0, maxResults)).map(({ doc, score }) => {
      const document = this.docs[doc]!;
      return {
        tool: document.tool,
        relevance_score: relevance(score),
        reasoning: explainHit(this.explanation(analyzed, document, mentioned)),
        human_name: document.humanName,
      };
    });
    return { hits, total_results: scored.length };
  }

  private buildPostings(fieldTf: Array<Record<FieldName, Map<string, number>>>, fieldLength: Array<Record<FieldName, number>>): void {
    const n = this.docs.length;
    const average = {} as Record<FieldName, number>;
    for (const field of FIELDS) average[field] = Math.max(1, fieldLength.reduce((sum, l) => sum + l[field], 0) / Math.max(1, n));
    const documentFrequency = new Map<string, number>();
    for (const tf of fieldTf) {
      const seen = new Set<string>();
      for (const field of FIELDS) for (const term of tf[field].keys()) seen.add(term);
      for (const term of seen) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
    }
    fieldTf.forEach((tf, doc) => {
      const combined = new Map<string, number>();
      for (const field of FIELDS) {
        const norm = 1 - FIELD_B[field] + (FIELD_B[field] * fieldLength[doc]![field]) / average[field];
        for (const [term, count] of tf[field]) combined.set(term, (combined.get(term) ?? 0) + (FIELD_WEIGHTS[field] * count) / norm);
      }
      for (const [term, weighted] of combined) {
        const df = documentFrequency.get(term) ?? 1;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        const score = (idf * weighted * (K1 + 1)) / (K1 + weighted);
        const list = this.postings.get(term) ?? [];
        list.push({ doc, score });
        this.postings.set(term, list);
        this.docs[doc]!.termScores.set(term, score);
      }
    });
  }

  /**
   * Words that name a connector in an intent: the curated names of built-in connectors, and for the
   * others the words of their name and slug that no other connector uses and that say something.
   */
  private buildAliases(tools: SearchableTool[]): void {
    const add = (term: string, slug: string, strength: number) => {
      const list = this.aliases.get(term) ?? [];
      if (!list.some((a) => a.slug === slug)) list.push({ slug, strength });
      this.aliases.set(term, list);
    };
    const wordOwners = new Map<string, Set<string>>();
    const slugs = new Set(tools.map((t) => t.connector_slug));
    for (const slug of slugs) {
      const curated = CONNECTOR_ALIASES[slug];
      if (curated) {
        for (const word of curated.strong) add(stem(word), slug, 1);
        for (const word of curated.weak ?? []) add(stem(word), slug, WEAK_ALIAS_STRENGTH);
        continue;
      }
      const words = `${this.connectorNames.get(slug) ?? ''} ${slug.replace(/[-_]+/g, ' ')}`.toLowerCase().split(/[^a-z0-9]+/);
      for (const word of words) {
        if (word.length < 2 || STOP_WORDS.has(word) || GENERIC_CONNECTOR_WORDS.has(word)) continue;
        const owners = wordOwners.get(stem(word)) ?? new Set<string>();
        owners.add(slug);
        wordOwners.set(stem(word), owners);
      }
    }
    for (const [term, owners] of wordOwners) if (owners.size === 1) add(term, [...owners][0]!, 1);
  }

  private mentionedConnectors(analyzed: AnalyzedIntent): Map<string, number> {
    const mentioned = new Map<string, number>();
    for (const term of analyzed.terms) {
      for (const alias of this.aliases.get(term) ?? []) mentioned.set(alias.slug, Math.max(mentioned.get(alias.slug) ?? 0, alias.strength));
    }
    return mentioned;
  }

  private explanation(analyzed: AnalyzedIntent, doc: ToolDocument, mentioned: Map<string, number>): HitExplanation {
    const matches: HitExplanation['matches'] = [];
    for (const group of analyzed.groups) {
      const match = this.bestAlternative(group, doc);
      if (match) matches.push(match);
    }
    matches.sort((a, b) => b.contribution - a.contribution);
    const primary = analyzed.actions[0];
    return {
      matches,
      intentAction: primary ? { action: primary.action, word: primary.word } : null,
      toolAction: doc.action,
      connectorNamed: mentioned.has(doc.tool.connector_slug) ? doc.tool.connector_name : null,
      toolLead: doc.lead,
    };
  }

  private bestAlternative(group: TermGroup, doc: ToolDocument): HitExplanation['matches'][number] | null {
    let found: HitExplanation['matches'][number] | null = null;
    for (const alternative of group.alternatives) {
      const score = doc.termScores.get(alternative.term);
      if (score === undefined) continue;
      const contribution = group.weight * alternative.closeness * score;
      if (found && found.contribution >= contribution) continue;
      found = {
        intentWord: group.word,
        toolWord: alternative.term === group.term ? null : (this.surface.get(alternative.term) ?? alternative.term),
        fields: FIELDS.filter((f) => doc.fieldTerms[f].has(alternative.term)),
        contribution,
        isVerb: group.isVerb,
      };
    }
    return found;
  }
}

/** Terms the intent reaches firmly (its own words and close synonyms), for name coverage. */
function reachedTerms(analyzed: AnalyzedIntent): Set<string> {
  const reached = new Set<string>();
  for (const group of analyzed.groups) {
    if (group.weight < COVERAGE_MIN_WEIGHT) continue;
    for (const alternative of group.alternatives) if (alternative.closeness >= COVERAGE_MIN_CLOSENESS) reached.add(alternative.term);
  }
  return reached;
}

/**
 * The share of what the tool's name is about that the intent mentions: `add_ticket_comment` is about
 * tickets and comments, so "open a ticket" covers half of it and all of `create_ticket`.
 */
function nameCoveragePoints(reached: Set<string>, doc: ToolDocument): number {
  if (doc.nameTopics.length === 0) return 0;
  const covered = doc.nameTopics.filter((t) => reached.has(t)).length;
  return (covered / doc.nameTopics.length) * RANKING_WEIGHTS.nameCoverage;
}

function nameTopics(name: string): string[] {
  // The first word of a name is its verb (add_ticket_comment); later words are what it acts on.
  const terms = tokenize(splitIdentifiers(name))
    .filter((t, i) => !t.stop && !GENERIC_NAME_WORDS.has(t.term) && !(i === 0 && TOOL_VERBS.has(t.term)))
    .map((t) => t.term);
  return [...new Set(terms)];
}

/**
 * Analyses of tool definitions seen before, so that building an index for another subset of the
 * same tools (another tool pack, another user) costs little more than its postings. Keyed by the
 * definition itself: a changed description or schema is a new entry. Bounded; oldest out first.
 */
const ANALYSIS_CACHE_LIMIT = 10_000;
const analysisCache = new Map<string, ToolAnalysis>();

function analyzeToolCached(tool: SearchableTool): ToolAnalysis {
  const key = [tool.connector_slug, tool.connector_name, tool.name, tool.description, JSON.stringify(tool.input_schema ?? {})].join('\u0000');
  const cached = analysisCache.get(key);
  if (cached) {
    analysisCache.delete(key);
    analysisCache.set(key, cached);
    return cached;
  }
  const analysis = analyzeTool(tool);
  if (analysisCache.size >= ANALYSIS_CACHE_LIMIT) analysisCache.delete(analysisCache.keys().next().value!);
  analysisCache.set(key, analysis);
  return analysis;
}

function analyzeTool(tool: SearchableTool): ToolAnalysis {
  const { prose, examples } = separateExamples(tool.description);
  const stripped = stripIdentifiers(prose);
  const lead = firstSentence(stripped);
  const texts: Record<FieldName, string> = {
    name: tool.name,
    head: headNoun(tool.name),
    connector: `${tool.connector_name} ${tool.connector_slug.replace(/[-_]+/g, ' ')} ${CONNECTOR_KEYWORDS[tool.connector_slug] ?? ''}`,
    lead,
    rest: stripped.slice(lead.length),
    params: `${schemaText(tool.input_schema)} ${examples}`,
  };
  const fieldTf = {} as Record<FieldName, Map<string, number>>;
  const fieldLength = {} as Record<FieldName, number>;
  const fieldTerms = {} as Record<FieldName, Set<string>>;
  const surface = new Map<string, string>();
  for (const field of FIELDS) {
    const counts = new Map<string, number>();
    let n = 0;
    for (const token of tokenize(texts[field])) {
      if (token.stop) continue;
      counts.set(token.term, (counts.get(token.term) ?? 0) + 1);
      if (!surface.has(token.term)) surface.set(token.term, token.text);
      n++;
    }
    fieldTf[field] = counts;
    fieldLength[field] = n;
    fieldTerms[field] = new Set(counts.keys());
  }
  const verb = toolVerb(tool);
  return {
    humanName: humanName(tool),
    fieldTf,
    fieldLength,
    fieldTerms,
    surface: [...surface],
    action: verb?.action ?? null,
    readKind: verb?.readKind ?? null,
    lead: firstSentence(tool.description),
    nameTopics: nameTopics(tool.name),
  };
}

function actionPoints(analyzed: AnalyzedIntent, doc: ToolDocument): number {
  if (!doc.action) return 0;
  let points = 0;
  for (const action of analyzed.actions) points += action.weight * ACTION_POINTS[action.action][doc.action];
  return points * RANKING_WEIGHTS.action;
}

function readKindPoints(analyzed: AnalyzedIntent, doc: ToolDocument): number {
  if (doc.action !== 'read' || !doc.readKind) return 0;
  const primary = analyzed.actions[0];
  if (primary && primary.action !== 'read') return 0;
  const hints = { ...analyzed.readKinds };
  // "the invoices table": one table, for a tool that reads one table.
  const object = doc.nameTopics[doc.nameTopics.length - 1];
  if (doc.readKind === 'get' && object && analyzed.definite.has(object)) hints.get = (hints.get ?? 0) + DEFINITE_OBJECT_HINT;
  // Listing with filters and searching overlap: a list tool half answers a search, and the reverse.
  let points = hints[doc.readKind] ?? 0;
  if (doc.readKind === 'list') points = Math.max(points, LIST_SEARCH_OVERLAP * (hints.search ?? 0));
  if (doc.readKind === 'search') points = Math.max(points, LIST_SEARCH_OVERLAP * (hints.list ?? 0));
  // A tool that reads one item by its id fits poorly when no id is given and several items are asked for.
  if (doc.readKind === 'get' && !hints.get) points -= 0.5 * Math.max(hints.list ?? 0, hints.search ?? 0);
  return points * RANKING_WEIGHTS.readKind;
}

export function relevance(score: number): number {
  if (score <= 0) return 0;
  return Math.round((1 - Math.exp(-score / SCORE_SCALE)) * 1000) / 1000;
}

/** What the tool does, from the first word of its name that is a verb, else the first word of its description. */
function toolVerb(tool: SearchableTool): { action: ActionClass; readKind?: ReadKind } | null {
  let verb: { action: ActionClass; readKind?: ReadKind } | null = null;
  for (const word of splitIdentifiers(tool.name).toLowerCase().split(/[^a-z0-9]+/)) {
    verb = TOOL_VERBS.get(stem(word)) ?? null;
    if (verb) break;
  }
  if (!verb) {
    const first = tool.description.trim().split(/[^A-Za-z]+/)[0]?.toLowerCase();
    verb = first ? (TOOL_VERBS.get(stem(first)) ?? null) : null;
  }
  // A tool that runs statements or requests but says it only reads (run_query) is a reading tool.
  if (verb?.action === 'execute' && /\bread[- ]only\b/i.test(tool.description)) return { action: 'read', readKind: 'search' };
  // "get" of a collection (get_channel_history, get_file_contents) returns many items: a list.
  if (verb?.readKind === 'get' && isCollection(tool.name)) return { action: 'read', readKind: 'list' };
  return verb;
}

const COLLECTION_NOUNS = new Set(['history', 'log', 'logs', 'feed', 'timeline', 'contents', 'children', 'members', 'entries']);

function isCollection(name: string): boolean {
  const last = splitIdentifiers(name).toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 0).pop() ?? '';
  return COLLECTION_NOUNS.has(last) || (last.length > 3 && last.endsWith('s') && !/(ss|us|is)$/.test(last));
}

/**
 * The last word of a tool's name is what it acts on (`add_ticket_comment` acts on a comment, not a
 * ticket), so it counts again in a field of its own.
 */
function headNoun(name: string): string {
  const words = splitIdentifiers(name).split(/[^A-Za-z0-9]+/).filter((w) => w.length > 0);
  return words.length > 1 ? (words[words.length - 1] ?? '') : '';
}

/**
 * snake_case words in descriptions are parameter names (indexed with the parameters) or names of
 * sibling tools ("use get_message for the body"), which would make a tool match its neighbour's words.
 */
function stripIdentifiers(description: string): string {
  return description.replace(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g, ' ');
}

/**
 * Quoted and backticked spans of a description are examples of values or syntax
 * ("repo:octo-org/hello is:issue label:bug crash"): they document parameters, so they are indexed
 * with them, not as what the tool is for.
 */
function separateExamples(description: string): { prose: string; examples: string } {
  const examples: string[] = [];
  const prose = description.replace(/`[^`]*`|"[^"]*"|“[^”]*”/g, (m) => {
    examples.push(m.slice(1, -1));
    return ' ';
  });
  return { prose, examples: examples.join(' ') };
}

/** The first sentence: up to a full stop followed by a space and a capital (not "e.g. X"). */
export function firstSentence(text: string): string {
  const trimmed = text.trim();
  for (let i = 0; i < trimmed.length; i++) {
    const c = trimmed[i];
    if (c !== '.' && c !== '!' && c !== '?') continue;
    if (c === '.' && /(?:\be\.g|\bi\.e|\betc|\bvs)$/.test(trimmed.slice(Math.max(0, i - 4), i))) continue;
    const after = trimmed.slice(i + 1, i + 3);
    if (after === '' || /^\s+$/.test(after) || /^\s[A-Z`"(]/.test(after)) return trimmed.slice(0, i + 1);
  }
  return trimmed;
}

/** Parameter names, descriptions and enum values of an input schema, a few levels deep. */
function schemaText(schema: unknown, depth = 0): string {
  if (!schema || typeof schema !== 'object' || depth > 4) return '';
  const node = schema as Record<string, unknown>;
  const parts: string[] = [];
  if (typeof node.description === 'string' && depth > 0) parts.push(node.description);
  if (Array.isArray(node.enum)) parts.push(node.enum.filter((v): v is string => typeof v === 'string').join(' '));
  const properties = node.properties;
  if (properties && typeof properties === 'object') {
    for (const [name, child] of Object.entries(properties as Record<string, unknown>)) {
      // The spec wraps every tool's parameters in one `input` object: its name says nothing.
      if (!(depth === 0 && name === 'input')) parts.push(name);
      parts.push(schemaText(child, depth + 1));
    }
  }
  if (node.items) parts.push(schemaText(node.items, depth + 1));
  return parts.filter((p) => p.length > 0).join(' ');
}
