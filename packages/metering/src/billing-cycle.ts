/**
 * The billing cycle is the calendar month in UTC: a cycle starts at 00:00:00.000 UTC on the first
 * day of a month and ends just before the first of the next. Every organization shares the same
 * cycles, so "until the next billing cycle" in a 402 means until the first of next month, UTC.
 *
 * The meter's Lua script computes the same label from the Redis server's clock
 * (`LUA_CYCLE_FUNCTIONS`); the tests check the two agree on every month boundary.
 */
export function billingCycle(now: number): string {
  if (!Number.isFinite(now)) throw new RangeError(`billingCycle needs a time in milliseconds, got ${now}`);
  const date = new Date(now);
  const year = date.getUTCFullYear();
  if (year < 0 || year > 9999) throw new RangeError(`billingCycle supports years 0000 to 9999, got ${year}`);
  return `${String(year).padStart(4, '0')}-${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
}

const CYCLE_PATTERN = /^\d{4}-(0[1-9]|1[0-2])$/;

export function isBillingCycle(value: string): boolean {
  return CYCLE_PATTERN.test(value);
}

/** The first millisecond of a cycle and of the one after it, for callers that show the period. */
export function billingCycleBounds(cycle: string): { start: number; end: number } {
  if (!isBillingCycle(cycle)) throw new RangeError(`a billing cycle is 'YYYY-MM', got '${cycle}'`);
  const year = Number(cycle.slice(0, 4));
  const month = Number(cycle.slice(5, 7));
  return { start: utcMonthStart(year, month - 1), end: utcMonthStart(year, month) };
}

// Date.UTC reads years 0 to 99 as 1900 to 1999; setUTCFullYear takes the year as given.
function utcMonthStart(year: number, monthIndex: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, monthIndex, 1);
  return date.getTime();
}

/** The cycle before `cycle` ('2026-01' gives '2025-12'). */
export function previousBillingCycle(cycle: string): string {
  const { start } = billingCycleBounds(cycle);
  return billingCycle(start - 1);
}
