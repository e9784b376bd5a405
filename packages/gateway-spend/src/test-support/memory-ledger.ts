import { randomUUID } from 'node:crypto';
import type { Environment, GrantRecorded, PeriodWindow, RecordedSpend, Reservation, SpendLedger } from '../types';

/** One admitted request's usage record, with the fields the spend ledger reads back. */
export interface UsageRecord {
  id: string;
  organizationId: string;
  environment: Environment;
  keyHash: string;
  projectId: string | null;
  customerId: string | null;
  byok: boolean;
  costMicros: number;
  epoch: string | null;
  countedAtMs: number;
  countedModelRequest: boolean;
  countedInRateLimit: boolean;
  grant?: string | null;
}

/**
 * The tests' durable store: an array standing in for the gateway's usage_records table, with the
 * reading rules the app's SQL implements (sum by scope, leave out one epoch, windows by counted_at).
 */
export class MemoryLedger implements SpendLedger {
  readonly records: UsageRecord[] = [];
  reads = 0;

  recordOf(reservation: Reservation, costMicros: number): UsageRecord {
    return {
      id: randomUUID(),
      organizationId: reservation.organizationId,
      environment: reservation.environment,
      keyHash: reservation.keyHash,
      projectId: reservation.projectId,
      customerId: reservation.customerId,
      byok: reservation.byok,
      costMicros,
      epoch: reservation.record.epoch,
      countedAtMs: reservation.record.countedAtMs,
      countedModelRequest: reservation.record.countedModelRequest,
      countedInRateLimit: reservation.record.countedInRateLimit,
      grant: reservation.record.grant,
    };
  }

  add(...records: UsageRecord[]): void {
    this.records.push(...records);
  }

  async grants(query: { organizationId: string; grantIds: string[] }): Promise<GrantRecorded[]> {
    return query.grantIds.flatMap((grantId) => {
      const rows = this.records.filter((r) => r.organizationId === query.organizationId && r.grant === grantId);
      if (rows.length === 0) return [];
      return [{ grantId, costMicros: rows.reduce((t, r) => t + r.costMicros, 0), modelRequests: rows.filter((r) => r.countedModelRequest).length }];
    });
  }

  async recorded(query: { organizationId: string; excludeEpoch: string; day: PeriodWindow; week: PeriodWindow; month: PeriodWindow; minute: PeriodWindow }): Promise<RecordedSpend> {
    this.reads += 1;
    const mine = this.records.filter((r) => r.organizationId === query.organizationId && r.epoch !== query.excludeEpoch);
    const within = (r: UsageRecord, w: PeriodWindow) => r.countedAtMs >= w.startMs && r.countedAtMs < w.endMs;
    const sum = (rows: UsageRecord[]) => rows.reduce((total, r) => total + r.costMicros, 0);
    const groups = <K>(rows: UsageRecord[], keyOf: (r: UsageRecord) => K | null) => {
      const map = new Map<string, { key: K; rows: UsageRecord[] }>();
      for (const r of rows) {
        const key = keyOf(r);
        if (key === null) continue;
        const id = JSON.stringify(key);
        const group = map.get(id) ?? { key, rows: [] };
        group.rows.push(r);
        map.set(id, group);
      }
      return [...map.values()];
    };
    return {
      organizationCreditMicros: sum(mine.filter((r) => !r.byok)),
      projects: groups(mine, (r) => (r.projectId === null ? null : { environment: r.environment, projectId: r.projectId })).map((g) => ({ ...g.key, micros: sum(g.rows) })),
      customers: groups(mine, (r) => (r.customerId === null ? null : { environment: r.environment, customerId: r.customerId })).map((g) => ({ ...g.key, micros: sum(g.rows) })),
      keys: groups(mine, (r) => r.keyHash).map(({ key, rows }) => {
        const byok = rows.filter((r) => r.byok);
        const inWindow = (w: PeriodWindow, list: UsageRecord[]) => sum(list.filter((r) => within(r, w)));
        return {
          keyHash: key,
          total: sum(rows),
          byokTotal: sum(byok),
          day: inWindow(query.day, rows),
          byokDay: inWindow(query.day, byok),
          week: inWindow(query.week, rows),
          byokWeek: inWindow(query.week, byok),
          month: inWindow(query.month, rows),
          byokMonth: inWindow(query.month, byok),
        };
      }),
      modelRequestsInDay: mine.filter((r) => r.countedModelRequest && within(r, query.day)).length,
      rateLimitedRequestsInMinute: mine.filter((r) => r.countedInRateLimit && within(r, query.minute)).length,
    };
  }
}
