import { periodsAt } from './periods';

describe('periodsAt', () => {
  it('days start at 00:00 UTC', () => {
    const p = periodsAt(Date.UTC(2026, 10, 24, 23, 59, 59, 999));
    expect(p.day.startMs).toBe(Date.UTC(2026, 10, 24));
    expect(p.day.endMs).toBe(Date.UTC(2026, 10, 25));
    expect(periodsAt(Date.UTC(2026, 10, 25)).day.label).toBe(p.day.label + 1);
  });

  it('weeks start on Monday at 00:00 UTC', () => {
    // 2026-11-23 is a Monday; 2026-11-29 a Sunday.
    for (let d = 23; d <= 29; d += 1) {
      const p = periodsAt(Date.UTC(2026, 10, d, 12));
      expect(new Date(p.week.startMs).toISOString()).toBe('2026-11-23T00:00:00.000Z');
      expect(new Date(p.week.endMs).toISOString()).toBe('2026-11-30T00:00:00.000Z');
    }
    expect(new Date(periodsAt(Date.UTC(2026, 10, 30)).week.startMs).toISOString()).toBe('2026-11-30T00:00:00.000Z');
    for (let day = 0; day < 800; day += 1) expect(new Date(periodsAt(Date.UTC(2025, 0, 1) + day * 86_400_000).week.startMs).getUTCDay()).toBe(1);
  });

  it('months start on the 1st at 00:00 UTC, leap years included', () => {
    const feb = periodsAt(Date.UTC(2028, 1, 29, 23));
    expect(new Date(feb.month.startMs).toISOString()).toBe('2028-02-01T00:00:00.000Z');
    expect(new Date(feb.month.endMs).toISOString()).toBe('2028-03-01T00:00:00.000Z');
    expect(periodsAt(Date.UTC(2026, 11, 31, 23, 59)).month.endMs).toBe(Date.UTC(2027, 0, 1));
    expect(periodsAt(Date.UTC(2027, 0, 1)).month.label).toBe(periodsAt(Date.UTC(2026, 11, 31)).month.label + 1);
  });

  it('minutes are fixed 60-second windows', () => {
    const p = periodsAt(Date.UTC(2026, 10, 24, 10, 0, 59, 999));
    expect(p.minute.startMs).toBe(Date.UTC(2026, 10, 24, 10, 0));
    expect(p.minute.endMs).toBe(Date.UTC(2026, 10, 24, 10, 1));
  });
});
