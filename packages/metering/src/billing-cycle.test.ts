import { billingCycle, billingCycleBounds, isBillingCycle } from './billing-cycle';

describe('billingCycle', () => {
  it('is the calendar month in UTC', () => {
    expect(billingCycle(Date.parse('2025-06-15T12:00:00Z'))).toBe('2025-06');
  });

  it('changes at midnight UTC on the first of the month, whatever the local time zone', () => {
    expect(billingCycle(Date.parse('2025-01-31T23:59:59.999Z'))).toBe('2025-01');
    expect(billingCycle(Date.parse('2025-02-01T00:00:00.000Z'))).toBe('2025-02');
    expect(billingCycle(Date.parse('2025-12-31T23:59:59.999Z'))).toBe('2025-12');
    expect(billingCycle(Date.parse('2026-01-01T00:00:00.000Z'))).toBe('2026-01');
  });

  it('rejects a time that is not a number of milliseconds', () => {
    expect(() => billingCycle(Number.NaN)).toThrow(RangeError);
  });
});

describe('billingCycleBounds', () => {
  it('runs from the first millisecond of the month to the first of the next', () => {
    expect(billingCycleBounds('2024-02')).toEqual({ start: Date.parse('2024-02-01T00:00:00Z'), end: Date.parse('2024-03-01T00:00:00Z') });
    expect(billingCycleBounds('2025-12')).toEqual({ start: Date.parse('2025-12-01T00:00:00Z'), end: Date.parse('2026-01-01T00:00:00Z') });
  });

  it('round-trips with billingCycle', () => {
    for (const cycle of ['0001-01', '1970-01', '2000-02', '2024-02', '2099-12']) {
      const { start, end } = billingCycleBounds(cycle);
      expect(billingCycle(start)).toBe(cycle);
      expect(billingCycle(end - 1)).toBe(cycle);
    }
  });
});

describe('isBillingCycle', () => {
  it("accepts 'YYYY-MM' only", () => {
    expect(isBillingCycle('2025-06')).toBe(true);
    for (const bad of ['2025-6', '2025-13', '2025-00', '25-06', '2025-06-01', '']) expect(isBillingCycle(bad)).toBe(false);
  });
});
