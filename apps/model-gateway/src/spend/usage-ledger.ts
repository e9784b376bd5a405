import { sqlSpendLedger, type SpendLedger } from '@patchbay/gateway-spend';
import type { Db } from '../db';

/**
 * The spend counters' durable side: packages/gateway-spend's ledger over this app's usage_records
 * table (see that package's README, "After Redis loses its data").
 */
export function usageRecordsLedger(db: Db): SpendLedger {
  return sqlSpendLedger((sql, values) => db.$queryRawUnsafe<Array<Record<string, unknown>>>(sql, ...values));
}
