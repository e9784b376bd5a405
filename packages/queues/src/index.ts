export { QUEUE_NAMES, isQueueName } from './names';
export type { QueueName } from './names';
export type {
  AuditActor,
  AuditEventJob,
  Environment,
  QueuePayloads,
  RegisteredUserDeletedJob,
  ToolCallDetection,
  ToolCallRecordBatchJob,
  ToolCallRecordJob,
  ToolCallStatus,
  UnifiedDataSyncJob,
  GatewayUsageRecordBatchJob,
  GatewayUsageRecordJob,
  GatewayBatchJob,
  GatewayBatchLineJob,
} from './payloads';
export { CHANNEL_PUBLISHER_OPTIONS, CHANNEL_ROW_PREFIX, DEFAULT_JOB_OPTIONS, OUTBOX_TABLE_SQL, OutboxRelay, addMessageToOutbox, addToOutbox } from './outbox';
export type { OutboxDatabase, OutboxEvent, OutboxMessage, OutboxRelayOptions, OutboxWriter, QueueResolver, RelayQueue } from './outbox';
export { DirectProducer } from './direct';
export type { DirectProducerOptions } from './direct';
export { emitAuditEvent } from './audit';
export type { AuditChange, AuditPrincipal } from './audit';
export { consumerSpanName, createConsumer } from './consumer';
export type { ConsumerOptions, DeliveryInfo, EventHandler } from './consumer';
export { QueueSet } from './queue-set';
export { queuePrefix } from './prefix';
export type { QueueSetOptions } from './queue-set';
export { TRACE_FIELD, contextFromCarrier, injectTraceContext, linksFromCarrier } from './trace';
export type { JobData, TraceCarrier } from './trace';
export type { QueueLogger } from './logger';
export {
  REGISTRY_CHANGES_CHANNEL,
  REGISTRY_CHANGE_KINDS,
  parseRegistryChange,
  publishRegistryChange,
  subscribeChannel,
  subscribeRegistryChanges,
} from './channels';
export type { ChannelSubscriptionOptions, CloseChannelSubscription, CloseRegistryChangeSubscription, RegistryChange, RegistryChangeKind, RegistryChangeSubscriptionOptions } from './channels';
export { UnrecoverableError } from 'bullmq';
