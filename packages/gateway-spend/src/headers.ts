/** Micro-USD as a USD string for headers and messages: at least two decimals, at most six, no float rounding. */
export function formatUsd(micros: number): string {
  const sign = micros < 0 ? '-' : '';
  const abs = Math.abs(Math.trunc(micros));
  const whole = Math.floor(abs / 1_000_000);
  let fraction = String(abs % 1_000_000).padStart(6, '0');
  while (fraction.length > 2 && fraction.endsWith('0')) fraction = fraction.slice(0, -1);
  return `${sign}${whole}.${fraction}`;
}

/** USD (a number from the API or settings) to integer micro-USD, rounded to the nearest micro. */
export function usdToMicros(usd: number): number {
  if (!Number.isFinite(usd)) throw new RangeError(`an amount in USD must be a finite number, got ${usd}`);
  return Math.round(usd * 1_000_000);
}

/** Micro-USD to a USD number for JSON bodies (usage fields of the key object). */
export function microsToUsd(micros: number): number {
  return micros / 1_000_000;
}

export interface LimitFigures {
  limit: number;
  used: number;
}

/** The warning header's value when what is used is within `ratio` of the limit, else null. */
export function warningOf({ limit, used }: LimitFigures, ratio: number): string | null {
  if (limit <= 0) return `100% used, 0.00 USD left of ${formatUsd(limit)} USD`;
  if (limit - used > limit * ratio) return null;
  const percent = Math.min(100, Math.floor((used * 100) / limit));
  return `${percent}% used, ${formatUsd(Math.max(0, limit - used))} USD left of ${formatUsd(limit)} USD`;
}
