/**
 * An ordered collection of records, most of which are never held in memory: a seeded batch is a
 * segment that knows how to make its k-th record on demand (deterministically, from its index), so
 * seeding a million records costs nothing until they are read. Records are addressed by position,
 * which is also their order (creation order): positions are never reused or shifted, so a cursor that
 * remembers a position stays valid while records are added (at the end), changed or removed.
 */
export interface Segment<T, M = unknown> {
  /** First position of the segment. */
  start: number;
  count: number;
  /** Makes the record at `start + k`. */
  make(k: number): T;
  /** What the segment's records have in common, for filters that can skip a whole segment. */
  meta?: M;
}

export interface PageResult<T> {
  items: Array<{ pos: number; item: T }>;
  /** Position to continue from, or null when nothing after the page matches. */
  next: number | null;
}

export class LazyCollection<T, M = unknown> {
  private readonly segments: Array<Segment<T, M>> = [];
  private readonly overrides = new Map<number, T>();
  private readonly removed = new Set<number>();
  private size = 0;
  /** Bumped by every change: caches built from the collection (sorted views, counts) key on it. */
  version = 0;

  /** Appends `count` records made on demand; returns the position of the first. */
  appendLazy(count: number, make: (k: number) => T, meta?: M): number {
    const start = this.size;
    if (count > 0) {
      this.segments.push({ start, count, make, meta });
      this.size += count;
      this.version += 1;
    }
    return start;
  }

  /** Appends one record held in memory; returns its position. */
  append(item: T, meta?: M): number {
    const pos = this.size;
    this.segments.push({ start: pos, count: 1, make: () => item, meta });
    this.overrides.set(pos, item);
    this.size += 1;
    this.version += 1;
    return pos;
  }

  /** All positions ever allocated (removed ones included). */
  get length(): number {
    return this.size;
  }

  /** Records not removed. */
  get liveCount(): number {
    return this.size - this.removed.size;
  }

  has(pos: number): boolean {
    return Number.isInteger(pos) && pos >= 0 && pos < this.size && !this.removed.has(pos);
  }

  /** The record at `pos`, or undefined when there is none (never allocated, or removed). */
  get(pos: number): T | undefined {
    if (!this.has(pos)) return undefined;
    return this.read(pos);
  }

  /** Replaces the record at `pos` (kept in memory from now on). */
  set(pos: number, item: T): void {
    if (!this.has(pos)) throw new Error(`No record at position ${pos}`);
    this.overrides.set(pos, item);
    this.version += 1;
  }

  /** Removes the record at `pos`; its position stays taken. Returns false when there was none. */
  remove(pos: number): boolean {
    if (!this.has(pos)) return false;
    this.removed.add(pos);
    this.overrides.delete(pos);
    this.version += 1;
    return true;
  }

  /** Whether the record at `pos` was changed after seeding (held in memory). */
  isOverridden(pos: number): boolean {
    return this.overrides.has(pos);
  }

  /** Positions of changed records, in no particular order. */
  overriddenPositions(): IterableIterator<number> {
    return this.overrides.keys();
  }

  /** The segment holding `pos`. */
  segmentAt(pos: number): Segment<T, M> | undefined {
    const i = this.segmentIndex(pos);
    return i < 0 ? undefined : this.segments[i];
  }

  /**
   * Up to `limit` live records from position `from` on that pass `keep`. `skipSegment` lets a filter
   * pass over a whole segment's unchanged records at once (a `changed_since` after the seed time).
   */
  page(from: number, limit: number, keep?: (item: T, pos: number) => boolean, skipSegment?: (meta: M | undefined) => boolean): PageResult<T> {
    const items: Array<{ pos: number; item: T }> = [];
    let pos = Math.max(0, from);
    let si = this.segmentIndex(pos);
    while (pos < this.size) {
      const segment = this.segments[si]!;
      const end = segment.start + segment.count;
      const skipUnchanged = skipSegment?.(segment.meta) ?? false;
      for (; pos < end; pos += 1) {
        if (this.removed.has(pos)) continue;
        const override = this.overrides.get(pos);
        if (override === undefined && skipUnchanged) continue;
        const item = override ?? segment.make(pos - segment.start);
        if (keep && !keep(item, pos)) continue;
        if (items.length === limit) return { items, next: pos };
        items.push({ pos, item });
      }
      si += 1;
    }
    return { items, next: null };
  }

  /** Every live record in order (for tests' expectations and small sorted views). */
  *entries(): IterableIterator<{ pos: number; item: T }> {
    for (const segment of this.segments) {
      for (let k = 0; k < segment.count; k += 1) {
        const pos = segment.start + k;
        if (this.removed.has(pos)) continue;
        yield { pos, item: this.overrides.get(pos) ?? segment.make(k) };
      }
    }
  }

  private read(pos: number): T {
    const override = this.overrides.get(pos);
    if (override !== undefined) return override;
    const segment = this.segments[this.segmentIndex(pos)]!;
    return segment.make(pos - segment.start);
  }

  private segmentIndex(pos: number): number {
    const i = blockIndex(this.segments, pos, (s) => s.start);
    return i >= 0 ? i : pos < 0 ? 0 : -1;
  }
}

/** Index of the block (sorted by `first`, back to back) that holds `n`, or -1. */
function blockIndex<B extends { count: number }>(blocks: readonly B[], n: number, first: (b: B) => number): number {
  let lo = 0;
  let hi = blocks.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const b = blocks[mid]!;
    if (n < first(b)) hi = mid - 1;
    else if (n >= first(b) + b.count) lo = mid + 1;
    else return mid;
  }
  return -1;
}

/**
 * Hands out consecutive sequence numbers in blocks and finds the block a number belongs to: how a
 * fake maps a record id (made from its number) back to the collection and position that hold it.
 */
export class SequenceRanges<R> {
  private readonly blocks: Array<{ first: number; count: number; ref: R; firstPos: number }> = [];
  private next = 0;

  /** Reserves `count` numbers for `ref`, whose first record sits at `firstPos`; returns the first number. */
  reserve(count: number, ref: R, firstPos: number): number {
    const first = this.next;
    if (count > 0) {
      this.blocks.push({ first, count, ref, firstPos });
      this.next += count;
    }
    return first;
  }

  find(seq: number): { ref: R; pos: number } | undefined {
    const b = this.blocks[blockIndex(this.blocks, seq, (x) => x.first)];
    return b ? { ref: b.ref, pos: b.firstPos + (seq - b.first) } : undefined;
  }
}

/**
 * Collections hanging off records of another one (an event's attendees): one per parent, made on
 * demand from the parent's seed description and kept only once something in it changes, so a million
 * seeded parents hold no child collections at all.
 */
export class ChildCollections<T, M = unknown> {
  private readonly kept = new Map<number, LazyCollection<T, M>>();

  constructor(private readonly build: (parent: number) => LazyCollection<T, M>) {}

  /**
   * Children seeded from their parent: `seedOf` reads the parent record (found through `seqs`, by
   * its sequence number) and says how many children it has and how to make the k-th one. A parent
   * that no longer exists has none.
   */
  static seeded<R, P, T, M = unknown>(
    seqs: SequenceRanges<R>,
    parentOf: (ref: R, pos: number) => P | undefined,
    seedOf: (parent: P, seq: number) => { count: number; make: (k: number) => T; meta?: M } | null,
  ): ChildCollections<T, M> {
    return new ChildCollections<T, M>((seq) => {
      const children = new LazyCollection<T, M>();
      const found = seqs.find(seq);
      const parent = found && parentOf(found.ref, found.pos);
      const seed = parent === undefined ? null : seedOf(parent, seq);
      if (seed) children.appendLazy(seed.count, seed.make, seed.meta);
      return children;
    });
  }

  /** The children of `parent` to read (possibly a throwaway copy of the seeded ones). */
  read(parent: number): LazyCollection<T, M> {
    return this.kept.get(parent) ?? this.build(parent);
  }

  /** The children of `parent` to change (kept from now on). */
  write(parent: number): LazyCollection<T, M> {
    let children = this.kept.get(parent);
    if (!children) {
      children = this.build(parent);
      this.kept.set(parent, children);
    }
    return children;
  }
}
