/**
 * The queues services exchange work over. BullMQ joins its Redis keys with ':', so names never contain one.
 */
export const QUEUE_NAMES = {
  auditEvents: 'patchbay-audit-events',
  /** One record per job: what runtimes before record batches sent, still consumed. */
  toolCallRecords: 'patchbay-tool-call-records',
  toolCallRecordBatches: 'patchbay-tool-call-record-batches',
  registeredUserDeletions: 'patchbay-registered-user-deletions',
  unifiedDataSync: 'patchbay-unified-data-sync',
  /** One model gateway request (finished, cut or failed): tokens, cost, route. */
  gatewayUsageRecords: 'patchbay-gateway-usage-records',
  /** A gateway batch's steps (start: fan its lines out; finalize: write its output and error files). */
  gatewayBatches: 'patchbay-gateway-batches',
  /** One line of a gateway batch, run through the same pipeline as a single model request. */
  gatewayBatchLines: 'patchbay-gateway-batch-lines',
} as const;

export type QueueName = (typeof QUEUE_NAMES)[keyof typeof QUEUE_NAMES];

const ALL_NAMES: ReadonlySet<string> = new Set(Object.values(QUEUE_NAMES));

export function isQueueName(value: string): value is QueueName {
  return ALL_NAMES.has(value);
}
