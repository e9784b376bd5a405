import { counterScript } from './rebuildable-counters';

/**
 * Time and billing cycle inside a script. When the caller gives no time the script reads the
 * Redis server's clock, so replicas whose own clocks drift still agree on the window and the month.
 * `cycle_of` turns milliseconds since the epoch into 'YYYY-MM' (UTC) with the proleptic Gregorian
 * days-to-civil conversion; Lua 5.1 numbers are doubles, exact for integers far beyond these.
 */
const LUA_CLOCK = `
local function now_ms(given)
  local n = tonumber(given)
  if n then return n end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function year_month(ms)
  local z = math.floor(ms / 86400000) + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local month = mp < 10 and mp + 3 or mp - 9
  local year = yoe + era * 400
  if month <= 2 then year = year + 1 end
  return year, month
end

local function cycle_label(year, month)
  return string.format('%04d-%02d', year, month)
end
`;

/**
 * The whole decision for one tools/call, atomically, in one round trip.
 *
 * KEYS[1]  the rolling window of the (organization, registered user): a sorted set, score = call time in ms
 * KEYS[2]  the organization's credit counters: a hash, fields '<cycle>:used' and '<cycle>:overage'
 *          (the fence of the organization's scope follows: see counterScript)
 * ARGV     now ms ('' = server TIME), limit per window, window ms, window key TTL ms,
 *          unique member for this call, plan ('free' | 'paid'), monthly allotment, counters TTL ms
 *
 * Returns {allowed 0|1, reason 0 none | 1 rate_limited | 2 billing_limit_reached, remaining,
 *          reset ms, retry-after ms (-1 = none), used, overage, now ms, cycle}.
 *
 * Order matters: the rate limit is checked first, so a rate-limited call costs nothing; a call the
 * billing limit refuses never enters the window; only an allowed call is added to both.
 */
export const CHECK_SCRIPT = counterScript(`${LUA_CLOCK}
local now = now_ms(ARGV[1])
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local plan = ARGV[6]
local allotment = tonumber(ARGV[7])
local year, month = year_month(now)
local cycle = cycle_label(year, month)
local used_field = cycle .. ':used'
local overage_field = cycle .. ':overage'

-- An entry is in the window while now - window < score <= now.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])

local function reset_ms()
  if count == 0 then return 0 end
  local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
  return math.max(0, tonumber(newest[2]) + window - now)
end

local counters = redis.call('HMGET', KEYS[2], used_field, overage_field)
local used = tonumber(counters[1]) or 0
local overage = tonumber(counters[2]) or 0

if count >= limit then
  -- The (count - limit + 1)th oldest call must leave before one more fits (the oldest when count == limit).
  local blocking = redis.call('ZRANGE', KEYS[1], count - limit, count - limit, 'WITHSCORES')
  local retry = math.max(1, tonumber(blocking[2]) + window - now)
  return {0, 1, 0, reset_ms(), retry, used, overage, now, cycle}
end

if plan == 'free' and used >= allotment then
  return {0, 2, limit - count, reset_ms(), -1, used, overage, now, cycle}
end

redis.call('ZADD', KEYS[1], now, ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
count = count + 1
used = redis.call('HINCRBY', KEYS[2], used_field, 1)
if plan == 'paid' and used > allotment then
  overage = redis.call('HINCRBY', KEYS[2], overage_field, 1)
end
if used == 1 then
  -- First call of a cycle: drop the counters of cycles before the previous one, which month-end
  -- billing has had weeks to read. Only older cycles, so a clock that steps back never erases one.
  local prev_year, prev_month = year, month - 1
  if prev_month == 0 then prev_year, prev_month = year - 1, 12 end
  local previous = cycle_label(prev_year, prev_month)
  for _, field in ipairs(redis.call('HKEYS', KEYS[2])) do
    if string.sub(field, 1, 7) < previous then redis.call('HDEL', KEYS[2], field) end
  end
end
redis.call('PEXPIRE', KEYS[2], ARGV[8])
return {1, 0, limit - count, reset_ms(), -1, used, overage, now, cycle}
`);

/**
 * KEYS[1] the organization's credit counters; ARGV[1] the cycle ('' = the current one by server TIME).
 * Returns {cycle, used, overage}.
 */
export const USAGE_SCRIPT = counterScript(`${LUA_CLOCK}
local cycle = ARGV[1]
if cycle == '' then cycle = cycle_label(year_month(now_ms(nil))) end
local counters = redis.call('HMGET', KEYS[1], cycle .. ':used', cycle .. ':overage')
return {cycle, tonumber(counters[1]) or 0, tonumber(counters[2]) or 0}
`);
