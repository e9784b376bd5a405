import { randomUUID } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { luaScript, runLua, type LuaScript } from './lua-script';

/**
 * What a counter script answers when its scope's epoch is missing or not yet rebuilt. Nothing was
 * read or counted; RebuildableCounters rebuilds the scope and runs the script again.
 */
const NOT_READY = 'patchbay:counters:not-ready';

/** Items per apply script: one script's ARGV stays small enough to never block Redis for long. */
const APPLY_CHUNK = 500;

/** A counting script guarded by its scope's epoch: build it with `counterScript`. */
export interface CounterScript {
  readonly lua: LuaScript;
}

/**
 * Wraps the Lua body of a counting (or reading) script with the epoch fence. The body is written
 * as usual with `KEYS[1..n]` and `ARGV[1..m]` being the names and arguments given to `run`; the
 * fence key and the scope's TTL are appended after them and must not be used by the body. The body
 * runs only when its scope is ready (rebuilt in its current epoch) and its return value (a table,
 * number or string, no nil inside a table) is what `run` resolves to, with the epoch beside it.
 */
export function counterScript(body: string): CounterScript {
  return {
    lua: luaScript(`
local fence_key = KEYS[#KEYS]
local fence_epoch = redis.call('HGET', fence_key, 'ready')
if not fence_epoch then return '${NOT_READY}' end
redis.call('PEXPIRE', fence_key, ARGV[#ARGV])
local function counter_body()
${body}
end
return {fence_epoch, counter_body()}
`),
  };
}

/**
 * KEYS[1] the scope's fence; ARGV[1] a fresh epoch id, ARGV[2] the scope TTL in ms.
 * Starts an epoch when the scope has none (Redis lost it, or the scope was never counted or idle
 * past its TTL). Returns {epoch, 1 when it was ready already, the Redis server's time in ms}.
 */
const BEGIN_SCRIPT = luaScript(`
local epoch = redis.call('HGET', KEYS[1], 'epoch')
if not epoch then
  epoch = ARGV[1]
  redis.call('HSET', KEYS[1], 'epoch', epoch)
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
local ready = redis.call('HGET', KEYS[1], 'ready') == epoch and 1 or 0
local t = redis.call('TIME')
return {epoch, ready, tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)}
`);

/**
 * KEYS[1] the scope's fence, KEYS[2..] the keys the items write.
 * ARGV[1] epoch, ARGV[2] scope TTL ms, ARGV[3] '1' on the last chunk of a rebuild, ARGV[4] item
 * count, then six values per item: kind ('c' counter | 'e' entry), index into KEYS, item id,
 * hash field ('' = the key is a plain integer) or sorted-set member, value or score, TTL ms (0 = none).
 *
 * Counters take the records' total as a floor: the fence remembers the base it added for each
 * counter in this epoch (`base:<id>`) and adds only what grew since, so applying the same totals
 * again adds nothing. A counter that already holds a value before the epoch is ready was counted
 * by code that predates the fence (an upgrade): it is adopted as the base, not added to; once the
 * epoch is ready, a counter without a base was counted live in it (base 0). Entries are added only
 * when absent (member = record id), except to sorted sets adopted that way. Returns 0 (nothing done) when the scope's epoch is no longer ARGV[1].
 */
const APPLY_SCRIPT = luaScript(`
local fence = KEYS[1]
local epoch = ARGV[1]
if redis.call('HGET', fence, 'epoch') ~= epoch then return 0 end
local ready = redis.call('HGET', fence, 'ready') == epoch
local function int(n) return string.format('%.0f', n) end
local count = tonumber(ARGV[4])
for i = 0, count - 1 do
  local o = 5 + i * 6
  local kind = ARGV[o]
  local key = KEYS[tonumber(ARGV[o + 1])]
  local id = ARGV[o + 2]
  local name = ARGV[o + 3]
  local value = tonumber(ARGV[o + 4])
  local ttl = tonumber(ARGV[o + 5])
  if kind == 'c' then
    local mark = 'base:' .. id
    local base = tonumber(redis.call('HGET', fence, mark))
    -- Once the epoch is ready, everything in a counter without a base was counted live in it.
    if base == nil and ready then base = 0 end
    local add = 0
    if base == nil then
      local current
      if name == '' then current = tonumber(redis.call('GET', key)) or 0 else current = tonumber(redis.call('HGET', key, name)) or 0 end
      if value > current then add = value - current end
      redis.call('HSET', fence, mark, int(math.max(value, current)))
    elseif value > base then
      add = value - base
      redis.call('HSET', fence, mark, int(value))
    end
    if add > 0 then
      if name == '' then redis.call('INCRBY', key, int(add)) else redis.call('HINCRBY', key, name, int(add)) end
    end
  else
    local mark = 'entries:' .. id
    local state = redis.call('HGET', fence, mark)
    if not state then
      state = (not ready and redis.call('EXISTS', key) == 1) and 'adopted' or 'rebuilt'
      redis.call('HSET', fence, mark, state)
    end
    if state == 'rebuilt' then redis.call('ZADD', key, 'NX', value, name) end
  end
  if ttl > 0 and redis.call('EXISTS', key) == 1 then
    local left = redis.call('PTTL', key)
    if left < ttl then redis.call('PEXPIRE', key, ttl) end
  end
end
if ARGV[3] == '1' then redis.call('HSET', fence, 'ready', epoch) end
redis.call('PEXPIRE', fence, ARGV[2])
return 1
`);

/** An integer counter rebuilt from the durable records: a plain key, or a field of a hash. */
export interface RebuiltCounter {
  /** The key's name inside the scope (see keyOf). */
  name: string;
  /** The hash field; leave out for a plain integer key. */
  field?: string;
  /** The sum of the durable records of every epoch but the current one. A whole number >= 0. */
  value: number;
  /** Expiry to give the key when it has none or a shorter one; leave out for none. At most scopeTtlMs. */
  ttlMs?: number;
}

/** A sorted-set member rebuilt from one durable record (a rolling window's entry). */
export interface RebuiltEntry {
  name: string;
  /** The record's own id, so applying it twice adds it once. */
  member: string;
  /** Usually the record's time in ms. */
  score: number;
  ttlMs?: number;
}

export interface CounterRebuild {
  counters?: RebuiltCounter[];
  entries?: RebuiltEntry[];
}

export interface RebuildContext {
  scope: string;
  /**
   * The scope's current epoch: the rebuild must leave out the records stamped with it (they are
   * counted live in Redis already) and include every other record, those without an epoch too.
   */
  epoch: string;
  /** The Redis server's time (or the caller's `nowMs` hint), to pick the periods to rebuild. */
  nowMs: number;
}

export interface CountersLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface RebuildableCountersOptions {
  /** Prepended to every key; no '{' or '}' (the scope's hash tag follows it). */
  keyPrefix: string;
  /**
   * How long a scope's fence lives after its last use. Must be at least the longest TTL any of
   * its counters gets, so the fence always outlives what it fences.
   */
  scopeTtlMs: number;
  /** Reads the durable records: the totals of every epoch but `context.epoch`. */
  rebuild: (context: RebuildContext) => Promise<CounterRebuild>;
  /**
   * After a scope is rebuilt, apply the records again after these delays, for the records that
   * were still on their way (in a buffer, an outbox, a queue) when it was rebuilt. Default
   * 1 s, 5 s, 15 s, 60 s, 300 s.
   */
  settleDelaysMs?: number[];
  /** How long noteDurable trusts the epoch it last saw for a scope. Default 2 s. */
  epochCacheMs?: number;
  logger?: CountersLogger;
}

export class CountersUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CountersUnavailableError';
  }
}

interface Reconcile {
  again: boolean;
  done: Promise<string>;
}

/**
 * Counters Redis holds as a rebuildable cache of durable records, exact after Redis loses its data
 * at any moment (see the package README, "Counters that survive Redis losing its data").
 *
 * Every scope (an organization, a key) has a fence in Redis naming its current epoch. Counting
 * scripts run only when the fence says the scope is ready, and tell the caller the epoch, which
 * the caller stamps on the durable record of what it counted. When the fence is gone, nothing is
 * counted: a new epoch starts and the scope is rebuilt from the records of every other epoch,
 * which are exactly the counts Redis lost, before any counting resumes. Records of the lost epoch
 * that were still on their way are added as they arrive (settle delays, noteDurable), and never twice.
 */
export class RebuildableCounters {
  private readonly keyPrefix: string;
  private readonly scopeTtlMs: number;
  private readonly settleDelaysMs: number[];
  private readonly epochCacheMs: number;
  private readonly reconciles = new Map<string, Reconcile>();
  private readonly settleTimers = new Map<string, NodeJS.Timeout>();
  private readonly epochs = new Map<string, { epoch: string | null; at: number }>();
  private closed = false;

  constructor(
    private readonly redis: Redis | Cluster,
    private readonly options: RebuildableCountersOptions,
  ) {
    if (/[{}]/.test(options.keyPrefix)) throw new RangeError(`keyPrefix must not contain '{' or '}', got '${options.keyPrefix}'`);
    if (!Number.isSafeInteger(options.scopeTtlMs) || options.scopeTtlMs < 1000) throw new RangeError('scopeTtlMs must be a whole number of milliseconds >= 1000');
    this.keyPrefix = options.keyPrefix;
    this.scopeTtlMs = options.scopeTtlMs;
    this.settleDelaysMs = options.settleDelaysMs ?? [1_000, 5_000, 15_000, 60_000, 300_000];
    this.epochCacheMs = options.epochCacheMs ?? 2_000;
  }

  /** The Redis key of a counter named `name` in `scope`: every key of a scope shares its hash tag. */
  keyOf(scope: string, name: string): string {
    if (!scope || /[{}]/.test(scope)) throw new RangeError(`a scope is a non-empty string without '{' or '}', got '${scope}'`);
    return `${this.keyPrefix}{${scope}}:${name}`;
  }

  private fenceKey(scope: string): string {
    return this.keyOf(scope, 'epoch');
  }

  /**
   * Runs a counter script on keys of one scope, in one round trip in the steady state. When the
   * scope is not ready (Redis lost it, or it is new) it is rebuilt from the durable records first,
   * once per scope however many callers wait, and the script runs again. Rejects with the Redis
   * error when Redis does not answer, or with CountersUnavailableError when the rebuild fails.
   *
   * `nowMs` is a hint for the rebuild (tests that move time); production leaves it out.
   */
  async run<T>(script: CounterScript, scope: string, names: string[], args: Array<string | number>, hint: { nowMs?: number } = {}): Promise<{ epoch: string; reply: T }> {
    const keys = [...names.map((name) => this.keyOf(scope, name)), this.fenceKey(scope)];
    const argv = [...args, this.scopeTtlMs];
    for (let attempt = 1; ; attempt += 1) {
      const reply = await runLua(this.redis, script.lua, keys, argv);
      if (reply !== NOT_READY) {
        const [epoch, body] = reply as [string, T];
        this.epochs.set(scope, { epoch, at: Date.now() });
        return { epoch, reply: body };
      }
      // A third refusal means Redis keeps losing the scope as fast as it is rebuilt.
      if (attempt === 3) throw new CountersUnavailableError(`the counters of ${scope} could not be rebuilt: Redis lost them again while they were`);
      await this.reconcileQueued(scope, hint, false);
    }
  }

  /**
   * Applies the durable records to the scope now (a rebuild when it is not ready). Idempotent:
   * counters only grow by what the records grew since the last apply in this epoch.
   */
  reconcile(scope: string): Promise<string> {
    return this.reconcileQueued(scope, {}, true);
  }

  /**
   * Tells the counters that records stamped with these epochs became durable (call it after they
   * commit). When one of them is not the scope's current epoch, its count was lost with Redis and
   * the scope is reconciled, so a record that arrives after every settle delay still counts.
   * Costs nothing while the epochs match the one last seen (at most epochCacheMs old). Never rejects.
   */
  async noteDurable(scope: string, epochs: Iterable<string | null | undefined>): Promise<void> {
    const stamped = new Set<string>();
    for (const epoch of epochs) if (epoch) stamped.add(epoch);
    if (stamped.size === 0) return;
    try {
      const current = await this.currentEpoch(scope);
      // No fence: the next count rebuilds the scope from the records, these included.
      if (current === null) return;
      if ([...stamped].some((epoch) => epoch !== current)) await this.reconcile(scope);
    } catch (err) {
      this.options.logger?.warn({ scope, error: err instanceof Error ? err.message : String(err) }, 'could not reconcile counters with late records; the settle delays will');
    }
  }

  /** Stops the settle timers. The Redis connection stays the caller's. */
  close(): void {
    this.closed = true;
    for (const timer of this.settleTimers.values()) clearTimeout(timer);
    this.settleTimers.clear();
  }

  private async currentEpoch(scope: string): Promise<string | null> {
    const cached = this.epochs.get(scope);
    if (cached && Date.now() - cached.at < this.epochCacheMs) return cached.epoch;
    const epoch = await this.redis.hget(this.fenceKey(scope), 'ready');
    if (this.epochs.size > 10_000) this.epochs.clear();
    this.epochs.set(scope, { epoch, at: Date.now() });
    return epoch;
  }

  /**
   * One reconcile at a time per scope. A caller that must see records which arrived after the
   * running one began (`fresh`) gets one more run after it; others share the running one.
   */
  private reconcileQueued(scope: string, hint: { nowMs?: number }, fresh: boolean): Promise<string> {
    const running = this.reconciles.get(scope);
    if (running) {
      if (fresh) running.again = true;
      return running.done;
    }
    const entry: Reconcile = { again: false, done: Promise.resolve('') };
    entry.done = (async () => {
      try {
        let epoch: string;
        do {
          entry.again = false;
          epoch = await this.reconcileOnce(scope, hint);
        } while (entry.again);
        return epoch;
      } finally {
        this.reconciles.delete(scope);
      }
    })();
    this.reconciles.set(scope, entry);
    return entry.done;
  }

  private async reconcileOnce(scope: string, hint: { nowMs?: number }): Promise<string> {
    const fence = this.fenceKey(scope);
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const [epoch, wasReady, serverNowMs] = (await runLua(this.redis, BEGIN_SCRIPT, [fence], [randomUUID(), this.scopeTtlMs])) as [string, number, number];
      let rebuild: CounterRebuild;
      try {
        rebuild = await this.options.rebuild({ scope, epoch, nowMs: hint.nowMs ?? serverNowMs });
      } catch (err) {
        throw new CountersUnavailableError(`the counters of ${scope} could not be rebuilt from the durable records: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (await this.apply(scope, epoch, rebuild)) {
        this.epochs.set(scope, { epoch, at: Date.now() });
        if (wasReady !== 1) {
          this.options.logger?.warn({ scope, epoch }, 'counters rebuilt from the durable records (Redis had no state for them)');
          this.scheduleSettle(scope, epoch, 0);
        }
        return epoch;
      }
    }
    throw new CountersUnavailableError(`the counters of ${scope} could not be rebuilt: Redis lost them again while they were`);
  }

  private async apply(scope: string, epoch: string, rebuild: CounterRebuild): Promise<boolean> {
    const items: Array<[kind: 'c' | 'e', name: string, id: string, member: string, value: number, ttlMs: number]> = [];
    for (const c of rebuild.counters ?? []) {
      if (!Number.isSafeInteger(c.value) || c.value < 0) throw new RangeError(`counter ${c.name} ${c.field ?? ''}: value must be a whole number >= 0, got ${c.value}`);
      items.push(['c', c.name, `${c.name}|${c.field ?? ''}`, c.field ?? '', c.value, this.ttlOf(c.ttlMs)]);
    }
    for (const e of rebuild.entries ?? []) {
      if (!Number.isFinite(e.score)) throw new RangeError(`entry ${e.name} ${e.member}: score must be a finite number`);
      items.push(['e', e.name, e.name, e.member, e.score, this.ttlOf(e.ttlMs)]);
    }
    const fence = this.fenceKey(scope);
    for (let start = 0; start === 0 || start < items.length; start += APPLY_CHUNK) {
      const chunk = items.slice(start, start + APPLY_CHUNK);
      const keys = [fence];
      const keyIndex = new Map<string, number>();
      const args: Array<string | number> = [epoch, this.scopeTtlMs, start + APPLY_CHUNK >= items.length ? '1' : '0', chunk.length];
      for (const [kind, name, id, member, value, ttlMs] of chunk) {
        let index = keyIndex.get(name);
        if (index === undefined) {
          keys.push(this.keyOf(scope, name));
          index = keys.length;
          keyIndex.set(name, index);
        }
        args.push(kind, index, id, member, value, ttlMs);
      }
      if ((await runLua(this.redis, APPLY_SCRIPT, keys, args)) !== 1) return false;
    }
    return true;
  }

  private ttlOf(ttlMs: number | undefined): number {
    if (ttlMs === undefined) return 0;
    if (!Number.isSafeInteger(ttlMs) || ttlMs < 1 || ttlMs > this.scopeTtlMs) throw new RangeError(`a rebuilt key's ttlMs must be 1 to scopeTtlMs (${this.scopeTtlMs}), got ${ttlMs}`);
    return ttlMs;
  }

  /** Applies the records again after each settle delay while the scope stays in the epoch rebuilt. */
  private scheduleSettle(scope: string, epoch: string, step: number): void {
    const delay = this.settleDelaysMs[step];
    if (this.closed || delay === undefined) {
      this.settleTimers.delete(scope);
      return;
    }
    const previous = this.settleTimers.get(scope);
    if (previous) clearTimeout(previous);
    const timer = setTimeout(() => {
      void (async () => {
        try {
          if ((await this.redis.hget(this.fenceKey(scope), 'ready')) !== epoch) {
            // Lost again or expired: whoever rebuilds the next epoch settles it.
            if (this.settleTimers.get(scope) === timer) this.settleTimers.delete(scope);
            return;
          }
          await this.reconcile(scope);
        } catch (err) {
          this.options.logger?.warn({ scope, error: err instanceof Error ? err.message : String(err) }, 'settling rebuilt counters failed; trying again at the next delay');
        }
        if (this.settleTimers.get(scope) === timer) this.scheduleSettle(scope, epoch, step + 1);
      })();
    }, delay);
    timer.unref();
    this.settleTimers.set(scope, timer);
  }
}
