import { counterScript } from '@patchbay/metering';

/**
 * The Redis side of the spend control. Every key of one organization lives in its scope
 * (`<prefix>{org:<id>}:<name>`), so one script sees them all and they share one cluster slot:
 *
 * | name           | type   | fields                                                                        |
 * | `t`            | hash   | `o` org credit drawn (not BYOK), `p:<env>:<project>`, `c:<env>:<customer>`,  |
 * |                |        | `k:<hash>` key lifetime, `kb:<hash>` its BYOK part: all-time totals, no TTL   |
 * | `d:<day>`      | hash   | `k:<hash>`, `kb:<hash>` the key's spend that day; `n` model requests that day |
 * | `w:<monday>`   | hash   | `k:<hash>`, `kb:<hash>`                                                       |
 * | `m:<month>`    | hash   | `k:<hash>`, `kb:<hash>`                                                       |
 * | `r:<minute>`   | string | requests of customer keys with rate_limit_rpm in that fixed 60 s window       |
 * | `f`            | zset   | reservations in flight, score = lease end, member = the reservation          |
 * | `l`            | zset   | reservations an admit released when their lease ran out, score = that time  |
 *
 * Money is integer micro-USD. Counters hold settled spend plus reservations in flight.
 *
 * A reservation member is `id|epoch|reserved|byok|key hash|project field|customer field|day|week|month`
 * ('-' for no project or customer; ids are URI-encoded so they hold no '|'). The period hashes of
 * a reservation are reached from its labels, inside the scope's own slot.
 *
 * `fence_epoch` is the scope's current epoch, a local of the fence that counterScript wraps around
 * these bodies: a reservation counted in another epoch was lost with Redis's data and is left alone
 * (its usage record carries its cost into the rebuilt counters instead).
 */
const LUA_RESERVATIONS = `
local prefix = string.sub(KEYS[1], 1, -2)
local live = {}
local function split(s)
  local out = {}
  for part in string.gmatch(s, '([^|]+)') do out[#out + 1] = part end
  return out
end
local function adjust(parts, delta)
  if delta == 0 then return end
  local byok = parts[4] == '1'
  local t = KEYS[1]
  local kf = 'k:' .. parts[5]
  local kbf = 'kb:' .. parts[5]
  if not byok then redis.call('HINCRBY', t, 'o', delta) end
  if parts[6] ~= '-' then redis.call('HINCRBY', t, parts[6], delta) end
  if parts[7] ~= '-' then redis.call('HINCRBY', t, parts[7], delta) end
  redis.call('HINCRBY', t, kf, delta)
  if byok then redis.call('HINCRBY', t, kbf, delta) end
  for _, name in ipairs({'d:' .. parts[8], 'w:' .. parts[9], 'm:' .. parts[10]}) do
    local key = prefix .. name
    -- A period that expired stays gone; one seen in this run needs no second look.
    if live[key] or redis.call('EXISTS', key) == 1 then
      live[key] = true
      redis.call('HINCRBY', key, kf, delta)
      if byok then redis.call('HINCRBY', key, kbf, delta) end
    end
  end
end
-- Settles one reservation as if alone (f: the in-flight set, l: the lapsed set). Returns 0 when it
-- belongs to a lost epoch (its record carries the cost), 1 settled (counters moved by actual -
-- reserved), 2 its lease had run out and an admit released it (counters moved by actual), 3 settled
-- before (nothing done). A reservation leaves f once and l once, so a second settle never counts,
-- however late it comes.
local function settle(f, l, member, actual)
  local parts = split(member)
  if parts[2] ~= fence_epoch then return 0 end
  if redis.call('ZREM', f, member) == 1 then
    adjust(parts, actual - tonumber(parts[3]))
    return 1
  end
  if redis.call('ZREM', l, member) == 1 then
    adjust(parts, actual)
    return 2
  end
  return 3
end
`;

/**
 * The whole admission of one model request, atomically, in one round trip.
 *
 * KEYS  1 t, 2 d:<day>, 3 w:<monday>, 4 m:<month>, 5 r:<minute>, 6 f, 7 l (then the fence)
 * ARGV  1 now ms, 2 reserve, 3 byok 1|0, 4 key hash, 5 key limit ('' none), 6 key window d|w|m|t,
 *       7 credit, 8 plan, 9 project field ('-'), 10 project budget (''), 11 customer field ('-'),
 *       12 customer budget (''), 13 customer rpm (''), 14 counts as a model request 1|0,
 *       15 free daily cap, 16 reservation id, 17 lease end ms, 18-22 TTLs of d, w, m, r, f in ms,
 *       23 the reservation member after its id and epoch (the script puts the scope's epoch in it),
 *       24 on: two per gathered settle of the scope, as SETTLE_SCRIPT takes them (member, actual)
 *
 * First applies the gathered settles, each as SETTLE_SCRIPT would: they ride on the admit instead of
 * costing Redis and the gateway a call of their own. Then releases up to 16 reservations whose
 * lease ran out (their replica died before settling), and notes them in l (kept for twice the
 * lease), where a settle that still comes finds them and counts its cost once.
 * Then the checks, in order: free plan daily cap, customer rate limit, org credit (not for BYOK),
 * project budget, key limit in its window, customer budget. A limit is reached once what is
 * counted (settled plus in flight) is at or over it. Nothing is counted when one refuses.
 *
 * Returns {refusal 0 (admitted) | 1 free cap | 2 customer rpm | 3 credit | 4 project | 5 key | 6 customer,
 *          model requests today, rpm window count, org credit drawn, project spend, customer spend,
 *          key spend in its window}, counts after this request when admitted.
 */
export const ADMIT_SCRIPT = counterScript(`
${LUA_RESERVATIONS}
local now = tonumber(ARGV[1])
for i = 24, #ARGV - 1, 2 do settle(KEYS[6], KEYS[7], ARGV[i], tonumber(ARGV[i + 1])) end
local expired = redis.call('ZRANGEBYSCORE', KEYS[6], '-inf', now, 'LIMIT', 0, 16)
if #expired > 0 then
  for _, member in ipairs(expired) do
    redis.call('ZREM', KEYS[6], member)
    local parts = split(member)
    if parts[2] == fence_epoch then
      adjust(parts, -tonumber(parts[3]))
      redis.call('ZADD', KEYS[7], now, member)
    end
  end
  redis.call('ZREMRANGEBYSCORE', KEYS[7], '-inf', now - tonumber(ARGV[22]))
  redis.call('PEXPIRE', KEYS[7], ARGV[22])
end

local reserve = tonumber(ARGV[2])
local byok = ARGV[3] == '1'
local kf = 'k:' .. ARGV[4]
local kbf = 'kb:' .. ARGV[4]
local key_limit = tonumber(ARGV[5])
local windows = {d = KEYS[2], w = KEYS[3], m = KEYS[4], t = KEYS[1]}
local window_key = windows[ARGV[6]]
local credit = tonumber(ARGV[7])
local free = ARGV[8] == 'free'
local pf = ARGV[9]
local p_budget = tonumber(ARGV[10])
local cf = ARGV[11]
local c_budget = tonumber(ARGV[12])
local rpm = tonumber(ARGV[13])
local counts = ARGV[14] == '1'
local cap = tonumber(ARGV[15])

local n = tonumber(redis.call('HGET', KEYS[2], 'n')) or 0
local rn = tonumber(redis.call('GET', KEYS[5])) or 0
local o = tonumber(redis.call('HGET', KEYS[1], 'o')) or 0
local p = 0
if pf ~= '-' then p = tonumber(redis.call('HGET', KEYS[1], pf)) or 0 end
local c = 0
if cf ~= '-' then c = tonumber(redis.call('HGET', KEYS[1], cf)) or 0 end
local kw = tonumber(redis.call('HGET', window_key, kf)) or 0
local function reply(code) return {code, n, rn, o, p, c, kw} end

if counts and free and n >= cap then return reply(1) end
if counts and rpm and rn >= rpm then return reply(2) end
if (not byok) and o >= credit then return reply(3) end
if p_budget and p >= p_budget then return reply(4) end
if key_limit and kw >= key_limit then return reply(5) end
if c_budget and c >= c_budget then return reply(6) end

local fresh = {}
if counts then
  n = redis.call('HINCRBY', KEYS[2], 'n', 1)
  if n == 1 then fresh[2] = true end
  if rpm then
    rn = redis.call('INCR', KEYS[5])
    redis.call('PEXPIRE', KEYS[5], ARGV[21])
  end
end
if reserve > 0 then
  if not byok then o = redis.call('HINCRBY', KEYS[1], 'o', reserve) end
  if pf ~= '-' then p = redis.call('HINCRBY', KEYS[1], pf, reserve) end
  if cf ~= '-' then c = redis.call('HINCRBY', KEYS[1], cf, reserve) end
  kw = redis.call('HINCRBY', KEYS[1], kf, reserve)
  if byok then redis.call('HINCRBY', KEYS[1], kbf, reserve) end
  for i = 2, 4 do
    local spent = redis.call('HINCRBY', KEYS[i], kf, reserve)
    if KEYS[i] == window_key then kw = spent end
    -- Only an admit creates a period hash (a settle leaves a missing one alone), and the period's
    -- end is fixed: its TTL is set when the hash may be new, that is when this field was.
    if spent == reserve then fresh[i] = true end
    if byok then redis.call('HINCRBY', KEYS[i], kbf, reserve) end
  end
end
-- Every admission is in flight until settled, a zero reservation too: its settle adds the real cost.
redis.call('ZADD', KEYS[6], ARGV[17], ARGV[16] .. '|' .. fence_epoch .. '|' .. ARGV[23])
redis.call('PEXPIRE', KEYS[6], ARGV[22])
for i = 2, 4 do
  if fresh[i] then redis.call('PEXPIRE', KEYS[i], ARGV[16 + i]) end
end
return reply(0)
`);

/**
 * Settles (or releases, with actual 0) reservations of one scope, each as if settled alone: the
 * gateway gathers the settles of a few milliseconds into one call (RedisSpendControl.settle).
 *
 * KEYS  1 t, 2 f, 3 l (then the fence). ARGV two per reservation: its member, actual micro-USD.
 * Returns one code per reservation, in order: 0 when it belongs to a lost epoch (nothing to do: its
 * record carries the cost), 1 settled (counters moved by actual - reserved), 2 its lease had run
 * out and an admit released it (counters moved by actual), 3 settled before (nothing done).
 */
export const SETTLE_SCRIPT = counterScript(`
${LUA_RESERVATIONS}
local out = {}
for i = 1, #ARGV - 1, 2 do
  out[#out + 1] = settle(KEYS[2], KEYS[3], ARGV[i], tonumber(ARGV[i + 1]))
end
return out
`);

/**
 * A key's usage. KEYS 1 t, 2 d:<day>, 3 w:<monday>, 4 m:<month>; ARGV 1 key hash.
 * Returns {total, day, week, month, byok total, byok day, byok week, byok month}.
 */
export const KEY_USAGE_SCRIPT = counterScript(`
local kf = 'k:' .. ARGV[1]
local kbf = 'kb:' .. ARGV[1]
local out = {}
for i = 1, 4 do out[i] = tonumber(redis.call('HGET', KEYS[i], kf)) or 0 end
for i = 1, 4 do out[i + 4] = tonumber(redis.call('HGET', KEYS[i], kbf)) or 0 end
return out
`);

/**
 * All-time totals of the `t` hash, read only: KEYS 1 t; ARGV its fields (`p:<env>:<project>`,
 * `c:<env>:<customer>`). Returns one number per field, 0 for a field never counted.
 */
export const TOTALS_SCRIPT = counterScript(`
local out = {}
for i = 1, #ARGV do out[i] = tonumber(redis.call('HGET', KEYS[1], ARGV[i])) or 0 end
return out
`);

/**
 * The counts X-RateLimit-Remaining reports, read only (a refusal decided before admission says what
 * admission would). KEYS 1 d:<day>, 2 r:<minute>. Returns {model requests today, rpm window count}.
 */
export const RATE_LIMIT_COUNTS_SCRIPT = counterScript(`
return {tonumber(redis.call('HGET', KEYS[1], 'n')) or 0, tonumber(redis.call('GET', KEYS[2])) or 0}
`);

/**
 * Grants (leased admission, see leases.ts and the README's "Leased admission"). A grant is a
 * reservation of one slice of headroom on every counter a lane of requests draws on (credit unless
 * BYOK, project, customer, the key all time and in its day, week and month), held by one replica,
 * which admits requests against it in process. Its keys, in the organization's scope:
 *
 * | `g`  | hash | `<id>` the grant's member (as a reservation's: `id|epoch|size|byok|key|project|customer|day|week|month`),
 * |      |      | `<id>:d` what the counters hold for it now, `<id>:s` the last report's sequence, `<id>:n` model requests reported |
 * | `gz` | zset | open grants, score = lease end (admission end + lease): after it the grant has lapsed                    |
 * | `gx` | zset | lapsed grants, score = when they lapsed: still debited, until reconciled from the usage records          |
 * | `gc` | zset | closed grants (score = when), so a late or retried report counts nothing; kept twice the lease          |
 * | `gr` | zset | replicas that asked for a grant, score = when: the active ones share the headroom                          |
 * | `gs` | hash | `e` the epoch grants were first asked for in, `since` when (Redis time): learning mode after data loss     |
 */
const LUA_GRANTS = `
local function redis_now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
-- Closes a grant whose counters hold 'held' for it: moves them to 'debit' (what it really used), adds
-- its model requests past those counted, and remembers it closed.
local function close_grant(g, gz, gx, gc, id, member, debit, count, now)
  local parts = split(member)
  local held = tonumber(redis.call('HGET', g, id .. ':d')) or tonumber(parts[3])
  adjust(parts, debit - held)
  local counted = tonumber(redis.call('HGET', g, id .. ':n')) or 0
  if count > counted then
    local day = prefix .. 'd:' .. parts[8]
    if redis.call('EXISTS', day) == 1 then redis.call('HINCRBY', day, 'n', count - counted) end
  end
  redis.call('HDEL', g, id, id .. ':d', id .. ':s', id .. ':n')
  redis.call('ZREM', gz, id)
  redis.call('ZREM', gx, id)
  redis.call('ZADD', gc, now, id)
end
`;

/**
 * Asks for a grant, atomically across every counter of the lane.
 *
 * KEYS  1 t, 2 d:<day>, 3 w:<monday>, 4 m:<month>, 5 g, 6 gz, 7 gx, 8 gc, 9 gr, 10 gs (then the fence)
 * ARGV  1 wanted micro-USD, 2 the lane's worst-case reserve of one request, 3 byok 1|0, 4 key hash,
 *       5 key limit (''), 6 key window d|w|m|t, 7 credit, 8 project field ('-'), 9 project budget (''),
 *       10 customer field ('-'), 11 customer budget (''), 12 grant id, 13 replica id,
 *       14 admission window ms, 15 lease ms, 16-18 day, week, month labels, 19-21 their end ms,
 *       22 near a limit: requests' worst case per active replica under which nothing is granted,
 *       23 learning ms (no grant that long after the epoch began), 24 active-replica window ms,
 *       25 the share of a replica's part of the headroom one grant takes (0-1]
 *
 * Returns {code 0 granted | 1 near a limit | 2 learning (Redis lost its data lately) | 3 the
 *   replica's period is not Redis's (its clock is off, or a period ends within 100 ms),
 *   size, Redis now, admission end, credit drawn, project spend, customer spend, key spend in its
 *   window, model requests today, active replicas, lapsed grants waiting for reconciliation}.
 *   The counts include the grant.
 */
export const GRANT_SCRIPT = counterScript(`
${LUA_RESERVATIONS}
${LUA_GRANTS}
local now = redis_now()
local g, gz, gx, gc, gr, gs = KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10]
local lease = tonumber(ARGV[15])
-- Grants whose replica never closed them lapse, and stay debited until reconciled from the records.
local lapsed = redis.call('ZRANGEBYSCORE', gz, '-inf', now, 'LIMIT', 0, 64)
for _, id in ipairs(lapsed) do
  redis.call('ZREM', gz, id)
  redis.call('ZADD', gx, now, id)
end
redis.call('ZREMRANGEBYSCORE', gc, '-inf', now - 2 * lease)
redis.call('ZADD', gr, now, ARGV[13])
redis.call('ZREMRANGEBYSCORE', gr, '-inf', now - tonumber(ARGV[24]))
local active = redis.call('ZCARD', gr)
for _, k in ipairs({gx, gc, gr}) do redis.call('PEXPIRE', k, 2 * lease + 60000) end
local waiting = redis.call('ZCARD', gx)

if redis.call('HGET', gs, 'e') ~= fence_epoch then
  redis.call('HSET', gs, 'e', fence_epoch, 'since', now)
end
redis.call('PEXPIRE', gs, ARGV[#ARGV])

local byok = ARGV[3] == '1'
local kf = 'k:' .. ARGV[4]
local key_limit = tonumber(ARGV[5])
local windows = {d = KEYS[2], w = KEYS[3], m = KEYS[4], t = KEYS[1]}
local window_key = windows[ARGV[6]]
local credit = tonumber(ARGV[7])
local pf, p_budget = ARGV[8], tonumber(ARGV[9])
local cf, c_budget = ARGV[10], tonumber(ARGV[11])
local o = tonumber(redis.call('HGET', KEYS[1], 'o')) or 0
local p = 0
if pf ~= '-' then p = tonumber(redis.call('HGET', KEYS[1], pf)) or 0 end
local c = 0
if cf ~= '-' then c = tonumber(redis.call('HGET', KEYS[1], cf)) or 0 end
local kw = tonumber(redis.call('HGET', window_key, kf)) or 0
local n = tonumber(redis.call('HGET', KEYS[2], 'n')) or 0
local function reply(code, size, until_ms) return {code, size, now, until_ms, o, p, c, kw, n, active, waiting} end

if now < tonumber(redis.call('HGET', gs, 'since')) + tonumber(ARGV[23]) then return reply(2, 0, 0) end
local day_end = tonumber(ARGV[19])
if now >= day_end - 100 or now < day_end - 86400000 then return reply(3, 0, 0) end

-- Headroom: what the tightest limit of the lane leaves after settled spend, reservations in flight
-- and every outstanding grant (all of them are in the counters).
local head = nil
local function tighter(left) if head == nil or left < head then head = left end end
if not byok then tighter(credit - o) end
if p_budget then tighter(p_budget - p) end
if key_limit then tighter(key_limit - kw) end
if c_budget then tighter(c_budget - c) end
local worst = tonumber(ARGV[2])
local size = tonumber(ARGV[1])
if head ~= nil then
  -- Near a limit nothing is granted: every request is judged alone by the shared counters.
  if head < tonumber(ARGV[22]) * worst * active then return reply(1, 0, 0) end
  -- A share of each replica's part at a time: near the end of a burst, little stays unused in grants.
  size = math.min(size, math.floor(head * tonumber(ARGV[25]) / active))
end
if size < worst or size <= 0 then return reply(1, 0, 0) end

local until_ms = math.min(now + tonumber(ARGV[14]), day_end - 100)
local member = ARGV[12] .. '|' .. fence_epoch .. '|' .. size .. '|' .. ARGV[3] .. '|' .. ARGV[4] .. '|' .. pf .. '|' .. cf .. '|' .. ARGV[16] .. '|' .. ARGV[17] .. '|' .. ARGV[18]
if not byok then o = redis.call('HINCRBY', KEYS[1], 'o', size) end
if pf ~= '-' then p = redis.call('HINCRBY', KEYS[1], pf, size) end
if cf ~= '-' then c = redis.call('HINCRBY', KEYS[1], cf, size) end
local total = redis.call('HINCRBY', KEYS[1], kf, size)
if window_key == KEYS[1] then kw = total end
if byok then redis.call('HINCRBY', KEYS[1], 'kb:' .. ARGV[4], size) end
for i = 2, 4 do
  local spent = redis.call('HINCRBY', KEYS[i], kf, size)
  if KEYS[i] == window_key then kw = spent end
  if byok then redis.call('HINCRBY', KEYS[i], 'kb:' .. ARGV[4], size) end
  -- The period hash may be new: it lives until its end plus the grace the admit gives it.
  if redis.call('PTTL', KEYS[i]) < 0 then
    local grace = ({0, 2, 8, 32})[i] * 86400000
    redis.call('PEXPIRE', KEYS[i], tonumber(ARGV[18 + i - 1]) + grace - now)
  end
end
redis.call('HSET', g, ARGV[12], member, ARGV[12] .. ':d', size)
redis.call('ZADD', gz, until_ms + lease, ARGV[12])
redis.call('PEXPIRE', g, ARGV[#ARGV])
redis.call('PEXPIRE', gz, ARGV[#ARGV])
return reply(0, size, until_ms)
`);

/**
 * Reports on grants of one scope: what each used, idempotently.
 *
 * KEYS  1 t, 2 g, 3 gz, 4 gx, 5 gc (then the fence)
 * ARGV  five per grant: id, sequence, debit (settled cost plus reservations still in flight against
 *       it), model requests admitted against it, 1 final | 0 not yet (requests still in flight)
 *
 * A report whose sequence is not above the last applied one does nothing, so a report retried after a
 * timeout counts once. Returns one code per grant: 0 unknown (closed or reconciled before, or of an
 * epoch Redis lost: the records carry its cost), 1 applied, 2 applied and closed, 3 a repeat.
 */
export const REPORT_SCRIPT = counterScript(`
${LUA_RESERVATIONS}
${LUA_GRANTS}
local now = redis_now()
local g, gz, gx, gc = KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local out = {}
for i = 1, #ARGV - 1, 5 do
  local id = ARGV[i]
  local member = redis.call('HGET', g, id)
  if not member then
    out[#out + 1] = 0
  else
    local seq = tonumber(ARGV[i + 1])
    local debit = tonumber(ARGV[i + 2])
    local count = tonumber(ARGV[i + 3])
    if seq <= (tonumber(redis.call('HGET', g, id .. ':s')) or 0) then
      out[#out + 1] = 3
    elseif ARGV[i + 4] == '1' then
      close_grant(g, gz, gx, gc, id, member, debit, count, now)
      out[#out + 1] = 2
    else
      local parts = split(member)
      local held = tonumber(redis.call('HGET', g, id .. ':d'))
      adjust(parts, debit - held)
      local counted = tonumber(redis.call('HGET', g, id .. ':n')) or 0
      if count > counted then
        local day = prefix .. 'd:' .. parts[8]
        if redis.call('EXISTS', day) == 1 then redis.call('HINCRBY', day, 'n', count - counted) end
      end
      redis.call('HSET', g, id .. ':d', debit, id .. ':s', seq, id .. ':n', math.max(count, counted))
      out[#out + 1] = 1
    end
  end
end
return out
`);

/**
 * Closes lapsed grants with what their usage records say they used (their replica died).
 * KEYS 1 t, 2 g, 3 gz, 4 gx, 5 gc; ARGV three per grant: id, recorded cost, recorded model requests.
 * Only grants still lapsed are closed (one its replica reported meanwhile is left as it is).
 * Returns the number closed.
 */
export const CLOSE_LAPSED_SCRIPT = counterScript(`
${LUA_RESERVATIONS}
${LUA_GRANTS}
local now = redis_now()
local g, gz, gx, gc = KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local closed = 0
for i = 1, #ARGV - 1, 3 do
  local id = ARGV[i]
  local member = redis.call('HGET', g, id)
  if member and redis.call('ZSCORE', gx, id) then
    close_grant(g, gz, gx, gc, id, member, tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2]), now)
    closed = closed + 1
  end
end
return closed
`);
