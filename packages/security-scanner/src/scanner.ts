import { BUILTIN_DETECTORS, featuresOf, type SpanSink } from './detectors';
import { validateRule, type RuleFieldError } from './validate-rule';
import type { BlockedBy, Detection, RuleAction, ScanDirection, ScanResult, SecurityRule } from './types';

/** Containers nested deeper than this are scanned as their JSON text instead of walked. */
export const MAX_DEPTH = 64;
/** Below MAX_DEPTH a subtree is scanned as JSON text, up to this many more levels. */
const MAX_SERIALIZED_DEPTH = 1_000;

/** Whether a JSON value nests objects or arrays more than `limit` levels deep, measured without recursion. */
export function nestedDeeperThan(root: unknown, limit: number): boolean {
  const stack: Array<[value: unknown, depth: number]> = [[root, 0]];
  let visited = 0;
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= limit) return true;
    // A bound on the work for pathological shapes (the walk itself bounds the size by the body limit).
    if (++visited > 1_000_000) return true;
    for (const child of Array.isArray(value) ? value : Object.values(value)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** Integers with at least this many digits are scanned as text for CREDIT_CARD. */
const CARD_NUMBER_MIN = 1e12;

/** A value the scanner cannot read, such as a cyclic structure. The call should fail closed. */
export class ScanError extends Error {
  override readonly name = 'ScanError';
}

/** A rule handed to the Scanner that validateRule would refuse. */
export class InvalidRuleError extends Error {
  override readonly name = 'InvalidRuleError';

  constructor(
    readonly ruleId: string,
    readonly errors: RuleFieldError[],
  ) {
    super(`Security rule ${ruleId} is invalid: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`);
  }
}

interface CompiledRule {
  id: string;
  name: string;
  kind: string;
  action: RuleAction;
  /** Position in the rule list: detections are reported in this order. */
  index: number;
}

/** One pass over the text: a built-in detector or one custom pattern, shared by every rule that uses it. */
interface Source {
  kind: string;
  /** Built-in detectors' rank for overlaps; custom patterns take -1 and never displace or get displaced. */
  rank: number;
  needs: number;
  minLength: number;
  find(text: string, sink: SpanSink): void;
  rules: CompiledRule[];
  /** The strongest action among the rules: what happens to the matched text. */
  action: RuleAction;
  blockRule: CompiledRule | null;
}

interface Plan {
  sources: Source[];
  cardSources: Source[];
  minLength: number;
  counts: Int32Array;
}

const STRENGTH: Record<RuleAction, number> = { allow: 0, redact: 1, block: 2 };
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const hasOwn = Object.prototype.hasOwnProperty;

function customFinder(regex: RegExp): Source['find'] {
  return (text, sink) => {
    regex.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = regex.exec(text)) !== null) {
      if (m[0].length === 0) {
        // A zero-width match (\b, a lookahead) marks no text; step past it.
        regex.lastIndex = m.index + 1;
        continue;
      }
      sink.add(m.index, m.index + m[0].length);
    }
  };
}

function formatKey(key: string): string {
  return IDENTIFIER.test(key) ? `.${key}` : `['${key.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}']`;
}

function compile(rules: SecurityRule[], direction: ScanDirection): Plan {
  const sources: Source[] = [];
  const builtins = new Map<string, Source>();
  let index = 0;
  for (const rule of rules) {
    const ruleIndex = index++;
    if (!rule.enabled || (rule.direction !== direction && rule.direction !== 'both')) continue;
    let source: Source | undefined;
    if (rule.detector === 'CUSTOM') {
      source = {
        kind: rule.label!,
        rank: -1,
        needs: 0,
        minLength: 1,
        find: customFinder(new RegExp(rule.pattern!, `${rule.flags ?? ''}g`)),
        rules: [],
        action: 'allow',
        blockRule: null,
      };
      sources.push(source);
    } else {
      source = builtins.get(rule.detector);
      if (!source) {
        const detector = BUILTIN_DETECTORS[rule.detector];
        source = { ...detector, rules: [], action: 'allow', blockRule: null };
        builtins.set(rule.detector, source);
        sources.push(source);
      }
    }
    const compiled: CompiledRule = { id: rule.id, name: rule.name, kind: source.kind, action: rule.action, index: ruleIndex };
    source.rules.push(compiled);
    if (STRENGTH[rule.action] > STRENGTH[source.action]) source.action = rule.action;
    if (rule.action === 'block' && !source.blockRule) source.blockRule = compiled;
  }
  return {
    sources,
    cardSources: sources.filter((s) => s.rank >= 0 && s.kind === 'CREDIT_CARD'),
    minLength: sources.reduce((min, s) => Math.min(min, s.minLength), Infinity),
    counts: new Int32Array(index),
  };
}

/**
 * Scans JSON values with a fixed set of rules. Build one per rule set (an organization's rules with a
 * tool pack's overrides) and reuse it for every call: construction validates and compiles the rules.
 * Not reentrant, which a synchronous scan on Node's one thread never needs.
 */
export class Scanner {
  private readonly inbound: Plan;
  private readonly outbound: Plan;

  // State of the scan in progress, kept on the instance so a clean scan allocates almost nothing.
  private plan: Plan;
  private direction: ScanDirection = 'inbound';
  private readonly path: Array<string | number> = [];
  private detections: Detection[] | null = null;
  private blocked: BlockedBy | null = null;
  private maskedKey: string | null = null;
  private hitStart: number[] = [];
  private hitEnd: number[] = [];
  private hitSource: Source[] = [];
  private hitCount = 0;
  private currentSource: Source | null = null;
  private readonly sink: SpanSink = {
    add: (start, end) => {
      const i = this.hitCount++;
      this.hitStart[i] = start;
      this.hitEnd[i] = end;
      this.hitSource[i] = this.currentSource!;
    },
  };

  constructor(rules: SecurityRule[]) {
    for (const rule of rules) {
      if (!rule.enabled) continue;
      const { name, detector, pattern, flags, label, direction, action, enabled } = rule;
      const checked = validateRule({ name, detector, pattern, flags, label, direction, action, enabled });
      if ('errors' in checked) throw new InvalidRuleError(rule.id, checked.errors);
    }
    this.inbound = compile(rules, 'inbound');
    this.outbound = compile(rules, 'outbound');
    this.plan = this.inbound;
  }

  scan(value: unknown, direction: ScanDirection): ScanResult {
    if (direction !== 'inbound' && direction !== 'outbound') throw new TypeError(`direction must be inbound or outbound, got ${String(direction)}`);
    const plan = direction === 'inbound' ? this.inbound : this.outbound;
    if (plan.sources.length === 0) return { value, detections: [], blocked: null };
    this.plan = plan;
    this.direction = direction;
    this.path.length = 0;
    this.detections = null;
    this.blocked = null;
    try {
      const out = this.walk(value, 0);
      return { value: out, detections: this.detections ?? [], blocked: this.blocked };
    } finally {
      this.detections = null;
      this.blocked = null;
    }
  }

  private walk(node: unknown, depth: number): unknown {
    if (typeof node === 'string') return node.length < this.plan.minLength ? node : this.scanText(node, this.plan.sources, false);
    if (typeof node === 'number') {
      if (this.plan.cardSources.length === 0 || node < CARD_NUMBER_MIN || !Number.isSafeInteger(node)) return node;
      const text = String(node);
      const out = this.scanText(text, this.plan.cardSources, false);
      return out === text ? node : out;
    }
    if (typeof node !== 'object' || node === null) return node;
    if (depth >= MAX_DEPTH) return this.walkSerialized(node);
    if (Array.isArray(node)) {
      let copy: unknown[] | null = null;
      for (let i = 0; i < node.length; i++) {
        const item: unknown = node[i];
        this.path.push(i);
        const out = this.walk(item, depth + 1);
        this.path.pop();
        if (out !== item) (copy ??= node.slice())[i] = out;
      }
      return copy ?? node;
    }
    const proto: unknown = Object.getPrototypeOf(node);
    // Only JSON objects: Dates, Buffers and class instances are not tool payload text.
    if (proto !== Object.prototype && proto !== null) return node;
    return this.walkObject(node as Record<string, unknown>, depth);
  }

  private walkObject(obj: Record<string, unknown>, depth: number): unknown {
    let changes: Array<[key: string, newKey: string, value: unknown]> | null = null;
    const minLength = this.plan.minLength;
    for (const key in obj) {
      if (!hasOwn.call(obj, key)) continue;
      let newKey = key;
      let segment = key;
      if (key.length >= minLength) {
        this.maskedKey = null;
        newKey = this.scanText(key, this.plan.sources, true);
        if (this.maskedKey !== null) segment = this.maskedKey;
      }
      const value = obj[key];
      this.path.push(segment);
      const out = this.walk(value, depth + 1);
      this.path.pop();
      if (out !== value || newKey !== key) (changes ??= []).push([key, newKey, out]);
    }
    return changes ? rebuild(obj, changes) : obj;
  }

  /** Too deep to walk: scan the subtree's JSON text, and replace the subtree by that text if it needs redacting. */
  private walkSerialized(node: object): unknown {
    // JSON.stringify recurses too: a subtree thousands of levels deep would overflow the stack. Measure it without recursion first.
    if (nestedDeeperThan(node, MAX_SERIALIZED_DEPTH)) {
      throw new ScanError(`the value at ${this.pathString()} is nested more than ${MAX_DEPTH + MAX_SERIALIZED_DEPTH} levels deep, which the security scan does not accept; send flatter arguments`);
    }
    let text: string | undefined;
    try {
      text = JSON.stringify(node);
    } catch (err) {
      throw new ScanError(`cannot scan the value at ${this.pathString()}: ${(err as Error).message}`);
    }
    if (text === undefined) return node;
    const out = this.scanText(text, this.plan.sources, false);
    return out === text ? node : out;
  }

  /** Runs the sources over one text; returns the text with redactions, or the same string when none apply. */
  private scanText(text: string, sources: Source[], isKey: boolean): string {
    const features = featuresOf(text);
    this.hitCount = 0;
    for (let i = 0; i < sources.length; i++) {
      const source = sources[i]!;
      if (text.length < source.minLength || (features & source.needs) !== source.needs) continue;
      this.currentSource = source;
      try {
        source.find(text, this.sink);
      } catch (err) {
        // V8 throws when a pattern's repeated group runs over megabytes of text and fills its backtrack stack.
        if (!(err instanceof RangeError)) throw err;
        const rules = source.rules.map((r) => r.id).join(', ');
        throw new ScanError(`rule ${rules} (${source.kind}) could not scan a string of ${text.length} characters at ${this.pathString()}: ${err.message}`);
      }
    }
    if (this.hitCount === 0) return text;
    return this.resolve(text, isKey);
  }

  private resolve(text: string, isKey: boolean): string {
    const n = this.hitCount;
    const start = this.hitStart;
    const end = this.hitEnd;
    const source = this.hitSource;
    const order: number[] = [];
    for (let i = 0; i < n; i++) order.push(i);
    order.sort((a, b) => start[a]! - start[b]! || end[b]! - end[a]!);
    const kept = new Uint8Array(n).fill(1);
    // Overlapping built-in detections name the same text twice ("+44 123 45 6789" holds an SSN shape):
    // the longer one wins, then the more specific detector.
    for (let i = 0; i < n; ) {
      let j = i + 1;
      let clusterEnd = end[order[i]!]!;
      while (j < n && start[order[j]!]! < clusterEnd) clusterEnd = Math.max(clusterEnd, end[order[j++]!]!);
      if (j - i > 1) resolveCluster(order.slice(i, j), start, end, source, kept);
      i = j;
    }

    const counts = this.plan.counts;
    const touched: CompiledRule[] = [];
    const redact: number[] = [];
    for (const h of order) {
      if (!kept[h]) continue;
      const src = source[h]!;
      for (const rule of src.rules) {
        const count = counts[rule.index]!;
        if (count === 0) touched.push(rule);
        counts[rule.index] = count + 1;
      }
      if (src.action !== 'allow') redact.push(h);
      if (src.action === 'block' && this.blocked === null) {
        const rule = src.blockRule!;
        this.blocked = { rule_id: rule.id, rule_name: rule.name, kind: rule.kind };
      }
    }

    let path: string;
    if (isKey) {
      // A key's own text never reaches a record: its path shows it masked, whatever the action.
      const masked = applyMarkers(text, order.filter((h) => kept[h]), start, end, source);
      this.maskedKey = masked;
      path = this.pathString(masked);
    } else {
      path = this.pathString();
    }
    touched.sort((a, b) => a.index - b.index);
    const detections = (this.detections ??= []);
    for (const rule of touched) {
      detections.push({ rule_id: rule.id, rule_name: rule.name, kind: rule.kind, direction: this.direction, action: rule.action, path, count: counts[rule.index]! });
      counts[rule.index] = 0;
    }
    return redact.length === 0 ? text : applyMarkers(text, redact, start, end, source);
  }

  private pathString(lastKey?: string): string {
    let out = '$';
    for (const segment of this.path) out += typeof segment === 'number' ? `[${segment}]` : formatKey(segment);
    if (lastKey !== undefined) out += formatKey(lastKey);
    return out;
  }
}

function resolveCluster(cluster: number[], start: number[], end: number[], source: Source[], kept: Uint8Array): void {
  const builtins = cluster.filter((h) => source[h]!.rank >= 0);
  if (builtins.length < 2) return;
  builtins.sort((a, b) => end[b]! - start[b]! - (end[a]! - start[a]!) || source[b]!.rank - source[a]!.rank || start[a]! - start[b]!);
  const accepted: number[] = [];
  for (const h of builtins) {
    if (accepted.some((a) => start[a]! < end[h]! && start[h]! < end[a]!)) kept[h] = 0;
    else accepted.push(h);
  }
}

/** Replaces each span (sorted by start) with its marker; overlapping spans become one marker, named by the strongest action. */
function applyMarkers(text: string, spans: number[], start: number[], end: number[], source: Source[]): string {
  let out = '';
  let cursor = 0;
  let i = 0;
  while (i < spans.length) {
    const first = spans[i]!;
    let regionEnd = end[first]!;
    let marker = source[first]!;
    let j = i + 1;
    while (j < spans.length && start[spans[j]!]! < regionEnd) {
      const h = spans[j]!;
      regionEnd = Math.max(regionEnd, end[h]!);
      if (STRENGTH[source[h]!.action] > STRENGTH[marker.action]) marker = source[h]!;
      j++;
    }
    out += `${text.slice(cursor, start[first])}[REDACTED:${marker.kind}]`;
    cursor = regionEnd;
    i = j;
  }
  return out + text.slice(cursor);
}

/** A copy of obj in its key order with the changed keys and values; a renamed key that collides gets " (2)", " (3)"... */
function rebuild(obj: Record<string, unknown>, changes: Array<[string, string, unknown]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let c = 0;
  for (const key in obj) {
    if (!hasOwn.call(obj, key)) continue;
    let newKey = key;
    let value = obj[key];
    const change = changes[c];
    if (change && change[0] === key) {
      [, newKey, value] = change;
      c++;
    }
    if (hasOwn.call(out, newKey)) {
      let n = 2;
      while (hasOwn.call(out, `${newKey} (${n})`)) n++;
      newKey = `${newKey} (${n})`;
    }
    // A "__proto__" key from JSON.parse is an own property; plain assignment would set the prototype instead.
    if (newKey === '__proto__') Object.defineProperty(out, newKey, { value, enumerable: true, writable: true, configurable: true });
    else out[newKey] = value;
  }
  return out;
}
