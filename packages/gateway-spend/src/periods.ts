/**
 * The UTC calendar periods spend is counted in. Each period has a whole-number label (used in Redis
 * key names and by the ledger) and bounds [startMs, endMs).
 *
 * - day: days since 1970-01-01, from 00:00 UTC
 * - week: the day label of its Monday (weeks run Monday to Sunday, UTC)
 * - month: year * 12 + month index (0-11), from the 1st at 00:00 UTC
 * - minute: the fixed 60-second window of the customer rate limit, minutes since the epoch
 */
export interface PeriodBounds {
  label: number;
  startMs: number;
  endMs: number;
}

export interface Periods {
  day: PeriodBounds;
  week: PeriodBounds;
  month: PeriodBounds;
  minute: PeriodBounds;
}

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

export function periodsAt(nowMs: number): Periods {
  if (!Number.isSafeInteger(nowMs) || nowMs < 0) throw new RangeError(`a time is whole milliseconds since 1970, got ${nowMs}`);
  const day = Math.floor(nowMs / DAY_MS);
  // 1970-01-01 was a Thursday: (day + 3) % 7 is the number of days since the last Monday.
  const monday = day - ((day + 3) % 7);
  const date = new Date(nowMs);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  const minute = Math.floor(nowMs / MINUTE_MS);
  return {
    day: { label: day, startMs: day * DAY_MS, endMs: (day + 1) * DAY_MS },
    week: { label: monday, startMs: monday * DAY_MS, endMs: (monday + 7) * DAY_MS },
    month: { label: year * 12 + month, startMs: Date.UTC(year, month, 1), endMs: Date.UTC(year, month + 1, 1) },
    minute: { label: minute, startMs: minute * MINUTE_MS, endMs: (minute + 1) * MINUTE_MS },
  };
}
