import type { Db } from '../db';
import type { Admission, AdmitRequest, KeyUsage, Reservation, SpendControl } from './spend-control';

/** UTC starts of today, this week (Monday) and this month. */
export function windowStarts(now: number): { day: Date; week: Date; month: Date } {
  const d = new Date(now);
  const day = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  const week = new Date(day.getTime() - ((day.getUTCDay() + 6) % 7) * 86_400_000);
  const month = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
  return { day, week, month };
}

/**
 * The stand-in until packages/gateway-spend is merged: admits everything (no limits enforced) and
 * reads a key's usage from the stored usage records. Replaced at merge, behind the same interface.
 */
export class AdmitAllSpendControl implements SpendControl {
  constructor(private readonly db: Db) {}

  async admit(req: AdmitRequest): Promise<Admission> {
    return { ok: true, reservation: { reserveMicros: req.reserveMicros, subject: req.subject }, headers: { 'X-RateLimit-Limit': '0', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '0' } };
  }

  async settle(_reservation: Reservation, _actualMicros: number, _recordId: string): Promise<void> {}

  async release(_reservation: Reservation): Promise<void> {}

  async keyUsage(keyHash: string, now = Date.now()): Promise<KeyUsage> {
    const { day, week, month } = windowStarts(now);
    const from = new Date(Math.min(week.getTime(), month.getTime()));
    const rows = await this.db.usageRecord.findMany({ where: { keyHash, createdAt: { gte: from } }, select: { createdAt: true, costMicros: true, byok: true } });
    const key = await this.db.apiKey.findUnique({ where: { hash: keyHash }, select: { limitReset: true } });
    const sum = (since: Date, byok: boolean) => rows.filter((r) => r.createdAt >= since && (!byok || r.byok)).reduce((a, r) => a + Number(r.costMicros), 0);
    const windows = { daily: day, weekly: week, monthly: month };
    const windowStart = key?.limitReset ? windows[key.limitReset] : month;
    return {
      usage: sum(windowStart, false),
      usage_daily: sum(day, false),
      usage_weekly: sum(week, false),
      usage_monthly: sum(month, false),
      byok_usage: sum(windowStart, true),
      byok_usage_daily: sum(day, true),
      byok_usage_weekly: sum(week, true),
      byok_usage_monthly: sum(month, true),
    };
  }
}
