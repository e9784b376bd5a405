import { randomUUID } from 'node:crypto';
import type { MeterDecision, MeterLedger, RecordedUsage } from '../meter';

/** One tool call's durable record, as mcp-runtime keeps it (the fields the meter reads back). */
export interface LedgerRecord {
  id: string;
  organizationId: string;
  registeredUserId: string;
  cycle: string;
  overage: boolean;
  epoch: string | null;
  atMs: number;
}

/**
 * The tests' durable store: an array standing in for mcp-runtime's tool_call_records table (whose
 * real implementation, over PostgreSQL, mcp-runtime's own tests exercise), with the same reading
 * rules. Tests decide when a record "commits", to hold records back as a queue or outbox would.
 */
export class MemoryLedger implements MeterLedger {
  readonly records: LedgerRecord[] = [];
  reads = 0;

  /** The record of an allowed call, stamped with its decision's epoch, at the decision's time. */
  recordOf(organizationId: string, registeredUserId: string, decision: MeterDecision, atMs = Date.now()): LedgerRecord {
    return {
      id: randomUUID(),
      organizationId,
      registeredUserId,
      cycle: decision.credits.cycle,
      overage: decision.credits.used > decision.credits.allotment,
      epoch: decision.epoch,
      atMs,
    };
  }

  add(...records: LedgerRecord[]): void {
    this.records.push(...records);
  }

  async recorded(query: { organizationId: string; excludeEpoch: string; cycles: string[]; callsSinceMs: number }): Promise<RecordedUsage> {
    this.reads += 1;
    const mine = this.records.filter((r) => r.organizationId === query.organizationId && r.epoch !== query.excludeEpoch);
    const credits = query.cycles.map((cycle) => {
      const inCycle = mine.filter((r) => r.cycle === cycle);
      return { cycle, used: inCycle.length, overage: inCycle.filter((r) => r.overage).length };
    });
    const calls = mine.filter((r) => r.atMs >= query.callsSinceMs).map((r) => ({ id: r.id, registeredUserId: r.registeredUserId, atMs: r.atMs }));
    return { credits, calls };
  }
}
