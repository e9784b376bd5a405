// A static check for custom rule patterns that could backtrack catastrophically. It runs when a rule is
// written, because once a scan is running a JavaScript regex cannot be interrupted.
//
// The check parses the pattern into a small syntax tree and rejects, under any quantifier that can repeat
// (max > 1, fixed counts like {20} included):
//   - a nested quantifier whose repetitions could be split more than one way: star height > 1, as in
//     (a+)+, (a*)*, (.*a){20}, (-?\d+)+, (\d+\.?)+. Allowed only in the provably unambiguous shape: a
//     repeated single character class, directly in the loop's sequence, that no character able to follow
//     it can belong to (what follows up to the next required item, or the loop's next iteration), as in
//     (\d{1,3}\.){3}, ([a-z]+,)+, (,[a-z]+)+ or (\s*,\s*\w+)+. Every character then has one place to go;
//   - an alternation whose branches can start with the same character, or can match empty: (a|a)*,
//     (a|ab)+, (\w|\d)+, (a|)*;
//   - a backreference.
// It is conservative: some safe patterns are refused (for example (ab|ac)+ or ((a+)b)+); write those
// without the nesting. (Often the repetition is not needed at all: the scan finds every match anyway.) It does not look for polynomial backtracking outside nested quantifiers, such as
// \s*\s*$ or .*x.*y, which stays linear per start position but can be quadratic on a long line; patterns
// should start with a literal prefix where they can. Syntax it does not understand is refused too.

export type CharRanges = Array<[number, number]>;

const MAX_CODE_POINT = 0x10ffff;
const ALL: CharRanges = [[0, MAX_CODE_POINT]];
const DIGITS: CharRanges = [[48, 57]];
const WORD: CharRanges = [[48, 57], [65, 90], [95, 95], [97, 122]];
const SPACE: CharRanges = [
  [9, 13], [32, 32], [160, 160], [0x1680, 0x1680], [0x2000, 0x200a], [0x2028, 0x2029], [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff],
];
const LINE_TERMINATORS: CharRanges = [[10, 10], [13, 13], [0x2028, 0x2029]];

function normalize(ranges: CharRanges): CharRanges {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: CharRanges = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

function negate(ranges: CharRanges): CharRanges {
  const out: CharRanges = [];
  let next = 0;
  for (const [lo, hi] of normalize(ranges)) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

export function intersects(a: CharRanges, b: CharRanges): boolean {
  for (const [alo, ahi] of a) for (const [blo, bhi] of b) if (alo <= bhi && blo <= ahi) return true;
  return false;
}

/** Case-insensitive matching: add the other case of ASCII letters, and assume the worst beyond ASCII. */
function foldCase(ranges: CharRanges): CharRanges {
  const out: CharRanges = [...ranges];
  for (const [lo, hi] of ranges) {
    const upperLo = Math.max(lo, 65);
    const upperHi = Math.min(hi, 90);
    if (upperLo <= upperHi) out.push([upperLo + 32, upperHi + 32]);
    const lowerLo = Math.max(lo, 97);
    const lowerHi = Math.min(hi, 122);
    if (lowerLo <= lowerHi) out.push([lowerLo - 32, lowerHi - 32]);
    if (hi >= 0x80) out.push([0x80, MAX_CODE_POINT]);
  }
  return normalize(out);
}

type Node =
  | { type: 'char'; set: CharRanges; at: number }
  | { type: 'seq'; items: Node[]; at: number }
  | { type: 'alt'; alts: Node[]; at: number }
  | { type: 'group'; body: Node; lookaround: boolean; at: number }
  | { type: 'quant'; body: Node; min: number; max: number; at: number; text: string }
  | { type: 'assert'; at: number }
  | { type: 'backref'; at: number };

class Unsupported extends Error {}

class Parser {
  private pos = 0;

  constructor(
    private readonly src: string,
    private readonly flags: string,
  ) {}

  parse(): Node {
    const node = this.alternation();
    if (this.pos < this.src.length) throw new Unsupported(`unexpected "${this.src[this.pos]}" at offset ${this.pos}`);
    return node;
  }

  private alternation(): Node {
    const at = this.pos;
    const alts = [this.sequence()];
    while (this.src[this.pos] === '|') {
      this.pos++;
      alts.push(this.sequence());
    }
    return alts.length === 1 ? alts[0]! : { type: 'alt', alts, at };
  }

  private sequence(): Node {
    const at = this.pos;
    const items: Node[] = [];
    while (this.pos < this.src.length && this.src[this.pos] !== '|' && this.src[this.pos] !== ')') {
      const atomStart = this.pos;
      const atom = this.atom();
      items.push(this.quantified(atom, atomStart));
    }
    return { type: 'seq', items, at };
  }

  private quantified(atom: Node, atomStart: number): Node {
    const c = this.src[this.pos];
    let min: number;
    let max: number;
    if (c === '*') [min, max] = [0, Infinity];
    else if (c === '+') [min, max] = [1, Infinity];
    else if (c === '?') [min, max] = [0, 1];
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.pos));
      if (!m) return atom;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      this.pos += m[0].length - 1;
    } else return atom;
    this.pos++;
    if (this.src[this.pos] === '?') this.pos++;
    if (atom.type === 'assert') return atom;
    return { type: 'quant', body: atom, min, max, at: atomStart, text: this.src.slice(atomStart, this.pos) };
  }

  private atom(): Node {
    const at = this.pos;
    const c = this.src[this.pos]!;
    if (c === '(') return this.group();
    if (c === '[') return { type: 'char', set: this.fold(this.charClass()), at };
    if (c === '.') {
      this.pos++;
      return { type: 'char', set: this.flags.includes('s') ? ALL : negate(LINE_TERMINATORS), at };
    }
    if (c === '^' || c === '$') {
      this.pos++;
      return { type: 'assert', at };
    }
    if (c === '\\') return this.escape(at);
    if (c === '*' || c === '+' || c === '?') throw new Unsupported(`nothing to repeat at offset ${at}`);
    const cp = this.src.codePointAt(this.pos)!;
    this.pos += cp > 0xffff ? 2 : 1;
    return { type: 'char', set: this.fold([[cp, cp]]), at };
  }

  private fold(set: CharRanges): CharRanges {
    return this.flags.includes('i') ? foldCase(set) : set;
  }

  private group(): Node {
    const at = this.pos;
    this.pos++;
    let lookaround = false;
    if (this.src[this.pos] === '?') {
      const rest = this.src.slice(this.pos);
      if (rest.startsWith('?:')) this.pos += 2;
      else if (rest.startsWith('?=') || rest.startsWith('?!')) [this.pos, lookaround] = [this.pos + 2, true];
      else if (rest.startsWith('?<=') || rest.startsWith('?<!')) [this.pos, lookaround] = [this.pos + 3, true];
      else {
        const named = /^\?<[A-Za-z_$][\w$]*>/.exec(rest);
        if (!named) throw new Unsupported(`group syntax at offset ${at}`);
        this.pos += named[0].length;
      }
    }
    const body = this.alternation();
    if (this.src[this.pos] !== ')') throw new Unsupported(`unclosed group at offset ${at}`);
    this.pos++;
    return { type: 'group', body, lookaround, at };
  }

  private escape(at: number): Node {
    const set = this.classEscape();
    if (set === 'assert') return { type: 'assert', at };
    if (set === 'backref') return { type: 'backref', at };
    return { type: 'char', set: this.fold(set), at };
  }

  /** Reads an escape after the backslash at this.pos (outside or inside a class). */
  private classEscape(inClass = false): CharRanges | 'assert' | 'backref' {
    this.pos++;
    const c = this.src[this.pos];
    if (c === undefined) throw new Unsupported('trailing backslash');
    this.pos++;
    switch (c) {
      case 'd': return DIGITS;
      case 'D': return negate(DIGITS);
      case 'w': return WORD;
      case 'W': return negate(WORD);
      case 's': return SPACE;
      case 'S': return negate(SPACE);
      case 'n': return [[10, 10]];
      case 'r': return [[13, 13]];
      case 't': return [[9, 9]];
      case 'v': return [[11, 11]];
      case 'f': return [[12, 12]];
      case 'b': return inClass ? [[8, 8]] : 'assert';
      case 'B': if (!inClass) return 'assert'; break;
      case 'p':
      case 'P': {
        const m = /^\{[^}]*\}/.exec(this.src.slice(this.pos));
        if (m) this.pos += m[0].length;
        return ALL;
      }
      case 'x': {
        const m = /^[0-9A-Fa-f]{2}/.exec(this.src.slice(this.pos));
        if (!m) return [[120, 120]];
        this.pos += 2;
        const cp = parseInt(m[0], 16);
        return [[cp, cp]];
      }
      case 'u': {
        const rest = this.src.slice(this.pos);
        const m = /^[0-9A-Fa-f]{4}/.exec(rest) ?? /^\{[0-9A-Fa-f]+\}/.exec(rest);
        if (!m) return [[117, 117]];
        this.pos += m[0].length;
        const cp = parseInt(m[0].replace(/[{}]/g, ''), 16);
        return [[cp, cp]];
      }
      case 'c': {
        const letter = this.src.charCodeAt(this.pos);
        if ((letter >= 65 && letter <= 90) || (letter >= 97 && letter <= 122)) {
          this.pos++;
          return [[letter % 32, letter % 32]];
        }
        return [[92, 92]];
      }
      case 'k':
        if (!inClass && this.src[this.pos] === '<') {
          const end = this.src.indexOf('>', this.pos);
          if (end === -1) throw new Unsupported(`named reference at offset ${this.pos - 2}`);
          this.pos = end + 1;
          return 'backref';
        }
        break;
      default:
        if (c >= '1' && c <= '9' && !inClass) {
          while (/\d/.test(this.src[this.pos] ?? '')) this.pos++;
          return 'backref';
        }
        if (c === '0') return [[0, 0]];
        if (c >= '1' && c <= '9') throw new Unsupported(`octal escape in a class at offset ${this.pos - 2}`);
    }
    const cp = this.src.codePointAt(this.pos - 1)!;
    return [[cp, cp]];
  }

  private charClass(): CharRanges {
    const at = this.pos;
    this.pos++;
    let negated = false;
    if (this.src[this.pos] === '^') {
      negated = true;
      this.pos++;
    }
    const ranges: CharRanges = [];
    while (this.src[this.pos] !== ']') {
      if (this.pos >= this.src.length) throw new Unsupported(`unclosed character class at offset ${at}`);
      const low = this.classAtom();
      if (this.src[this.pos] === '-' && this.src[this.pos + 1] !== ']' && this.pos + 1 < this.src.length && low.length === 1 && low[0]![0] === low[0]![1]) {
        const save = this.pos;
        this.pos++;
        const high = this.classAtom();
        if (high.length === 1 && high[0]![0] === high[0]![1]) {
          ranges.push([low[0]![0], high[0]![0]]);
          continue;
        }
        // "[\w-\d]" outside unicode mode: a literal dash between two classes.
        this.pos = save;
      }
      ranges.push(...low);
    }
    this.pos++;
    const set = normalize(ranges);
    return negated ? negate(set) : set;
  }

  private classAtom(): CharRanges {
    if (this.src[this.pos] === '\\') {
      const set = this.classEscape(true);
      if (set === 'assert' || set === 'backref') throw new Unsupported(`escape in a class at offset ${this.pos}`);
      return set;
    }
    const cp = this.src.codePointAt(this.pos)!;
    this.pos += cp > 0xffff ? 2 : 1;
    return [[cp, cp]];
  }
}

function nullable(node: Node): boolean {
  switch (node.type) {
    case 'char': return false;
    case 'seq': return node.items.every(nullable);
    case 'alt': return node.alts.some(nullable);
    case 'group': return node.lookaround || nullable(node.body);
    case 'quant': return node.min === 0 || nullable(node.body);
    case 'assert':
    case 'backref': return true;
  }
}

/** Characters a match of node can start with. */
function first(node: Node): CharRanges {
  switch (node.type) {
    case 'char': return node.set;
    case 'seq': {
      const out: CharRanges = [];
      for (const item of node.items) {
        out.push(...first(item));
        if (!nullable(item)) break;
      }
      return normalize(out);
    }
    case 'alt': return normalize(node.alts.flatMap(first));
    case 'group': return node.lookaround ? [] : first(node.body);
    case 'quant': return node.max === 0 ? [] : first(node.body);
    case 'assert': return [];
    case 'backref': return ALL;
  }
}

function unwrap(node: Node): Node {
  let n = node;
  while (n.type === 'group' && !n.lookaround) n = n.body;
  return n;
}

function children(node: Node): Node[] {
  switch (node.type) {
    case 'seq': return node.items;
    case 'alt': return node.alts;
    case 'group':
    case 'quant': return [node.body];
    default: return [];
  }
}

function descendants(node: Node, out: Node[] = []): Node[] {
  for (const child of children(node)) {
    out.push(child);
    descendants(child, out);
  }
  return out;
}

/** Why the repeating quantifier loop is unsafe, or null. */
function loopProblem(loop: Extract<Node, { type: 'quant' }>, src: string): string | null {
  const body = unwrap(loop.body);
  const inner = descendants(loop.body);
  if (inner.some((n) => n.type === 'backref')) return `backreference inside the repeated ${quote(loop.text)}`;
  for (const n of inner) {
    if (n.type !== 'alt') continue;
    const starts = n.alts.map(first);
    if (n.alts.some(nullable)) return `alternation with an empty branch inside the repeated ${quote(loop.text)}`;
    for (let i = 0; i < starts.length; i++) {
      for (let j = i + 1; j < starts.length; j++) {
        if (intersects(starts[i]!, starts[j]!)) return `overlapping alternation ${quote(excerpt(src, n.at))} inside the repeated ${quote(loop.text)}`;
      }
    }
  }
  const items = body.type === 'seq' ? body.items : [body];
  for (const n of inner) {
    if (n.type !== 'quant' || n.min === n.max) continue;
    const nested = `nested quantifier ${quote(n.text)} inside the repeated ${quote(loop.text)}`;
    const index = items.indexOf(n);
    const atom = unwrap(n.body);
    if (index === -1 || atom.type !== 'char') return nested;
    // What can come right after it: the rest of the iteration up to its first required item, or, when all of
    // that is optional, the start of the next iteration.
    const follow: CharRanges = [];
    let reachesEnd = true;
    for (let k = index + 1; k < items.length; k++) {
      follow.push(...first(items[k]!));
      if (!nullable(items[k]!)) {
        reachesEnd = false;
        break;
      }
    }
    if (reachesEnd) {
      if (nullable(body)) return nested;
      follow.push(...first(body));
    }
    if (intersects(atom.set, follow)) return nested;
  }
  return null;
}

function quote(text: string): string {
  return `"${text}"`;
}

function excerpt(src: string, at: number): string {
  const text = src.slice(at);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** Null when the pattern is safe by the rules above, else the reason it is not. */
export function catastrophicBacktrackingRisk(pattern: string, flags = ''): string | null {
  let tree: Node;
  try {
    tree = new Parser(pattern, flags).parse();
  } catch (err) {
    if (err instanceof Unsupported) return `the safety check does not understand this syntax (${err.message})`;
    throw err;
  }
  for (const n of [tree, ...descendants(tree)]) {
    if (n.type !== 'quant' || n.max <= 1) continue;
    const problem = loopProblem(n, pattern);
    if (problem) return problem;
  }
  return null;
}
