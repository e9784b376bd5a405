import { QUEUE_NAMES } from './names';

/** Test and production data never mix, so every event says which side it belongs to. */
export type Environment = 'production' | 'test';

/** Who caused an audited change. */
export interface AuditActor {
  type: 'access_key' | 'member' | 'admin_cli' | 'system' | 'service';
  access_key_id?: string | null;
  /** The member whose console session made the change, when `type` is 'member'. */
  member_id?: string | null;
  /** The calling service when `type` is 'service'. */
  service?: string | null;
}

/** An entry for the audit log, sent by any service to access-keys-and-audit. */
export interface AuditEventJob {
  /** uuid, chosen by the producer; the consumer stores each event_id once. */
  event_id: string;
  /** uuid */
  organization_id: string;
  environment: Environment;
  /** Dot-separated resource.action, e.g. 'registered_user.created'. */
  event_type: string;
  /** ISO 8601 UTC */
  occurred_at: string;
  actor: AuditActor;
  target_key_id?: string | null;
  /** The registered user the event concerns. */
  user_id?: string | null;
  resource_type?: string | null;
  resource_id?: string | null;
  /** 'connector-registry', 'mcp-runtime', ... */
  source_service: string;
  /** Never secrets. */
  details?: Record<string, unknown>;
}

/** A registered user was deleted: services holding data about them delete it too. */
export interface RegisteredUserDeletedJob {
  event_id: string;
  organization_id: string;
  environment: Environment;
  registered_user_id: string;
  /** ISO 8601 UTC */
  deleted_at: string;
}

/** How a tools/call ended: 'blocked' when a security rule of action block fired (inbound or outbound). */
export type ToolCallStatus = 'success' | 'error' | 'blocked';

/** A security-scanning rule that matched during a tool call (the shape of @patchbay/security-scanner's Detection). */
export interface ToolCallDetection {
  rule_id: string;
  rule_name: string;
  /** What the rule looks for: a detector kind such as 'EMAIL_ADDRESS', or a custom rule's label (the <KIND> of a redaction marker). */
  kind: string;
  /** 'inbound': arguments on their way to the tool; 'outbound': the result on its way to the model. */
  direction: 'inbound' | 'outbound';
  /** What the rule did: 'allow' only records, 'redact' replaced the match with [REDACTED:<KIND>], 'block' failed the call. */
  action: 'allow' | 'redact' | 'block';
  /** JSONPath of the string that matched, with matched keys masked; never the matched value. */
  path: string;
  /** Matches of this rule in that string. */
  count: number;
}

/** One MCP tools/call, metered and recorded by mcp-runtime after the response. */
export interface ToolCallRecordJob {
  event_id: string;
  organization_id: string;
  environment: Environment;
  tool_pack_id: string;
  registered_user_id: string;
  access_key_id: string;
  /** Fully qualified, e.g. 'github__create_issue'. */
  tool_name: string;
  connector_slug: string;
  status: ToolCallStatus;
  duration_ms: number;
  /** Every tools/call costs one credit, whatever its outcome. */
  credits: number;
  /** 'YYYY-MM' (UTC): the billing cycle the credit was counted in. */
  billing_cycle: string;
  /** Whether the credit was beyond a paid plan's monthly allotment (billed as overage at month end). */
  overage: boolean;
  detections: ToolCallDetection[];
  /** Why it failed: invalid_input, credential_missing, timeout, security_rule_blocked... null on success. */
  error_code: string | null;
  /** ISO 8601 UTC */
  occurred_at: string;
  /**
   * The meter epoch the credit was counted in (@patchbay/metering's MeterDecision.epoch); a uuid.
   * Absent from records of runtimes that predate it.
   */
  meter_epoch?: string | null;
  /**
   * The arguments as the tool received them, after security scanning's inbound rules (redaction
   * markers in place of redacted values), cut to a size limit by the producer. Absent from records
   * of runtimes that predate it, and null when the call never ran (unknown tool).
   */
  arguments?: unknown;
  /** The tools/call result the agent received, after the outbound rules; same limits as arguments. */
  result?: unknown;
}

/**
 * The records of the tool calls one mcp-runtime replica answered within a few milliseconds, as one
 * job: the queue's per-job work (its scripts, events and bookkeeping) is paid once per batch rather
 * than once per call. Storing is idempotent on each record's event_id, so a batch can be redelivered.
 */
export interface ToolCallRecordBatchJob {
  /** The batch's own id (the job id). */
  event_id: string;
  records: ToolCallRecordJob[];
}

/** Ask unified-data to sync a linked account's records from its marketing platform. */
export interface UnifiedDataSyncJob {
  event_id: string;
  organization_id: string;
  environment: Environment;
  linked_account_id: string;
  /** The platform's integration slug, e.g. 'hubspot'. */
  integration_slug: string;
  /** Which normalized models to sync, e.g. ['events', 'contacts']. */
  models: string[];
  /** 'full' re-reads everything; 'incremental' continues from the last cursor. */
  mode: 'full' | 'incremental';
  trigger: 'account_linked' | 'schedule' | 'manual';
  /** ISO 8601 UTC */
  requested_at: string;
}

/** The payload each queue carries, so producers and consumers agree at compile time. */
/**
 * One model request through the gateway, whatever its outcome (finished, cut, failed). Money in
 * integer micro-USD. The consumer stores it once per event_id.
 */
export interface GatewayUsageRecordJob {
  event_id: string;
  organization_id: string;
  environment: 'production' | 'test';
  key_hash: string;
  project_id: string | null;
  customer_id: string | null;
  surface: string;
  model: string;
  vendor: string | null;
  outcome: 'finished' | 'cut' | 'failed';
  error_code: string | null;
  status: number;
  stream: boolean;
  byok: boolean;
  input_tokens: number;
  cached_input_tokens: number;
  cache_write_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  usage_estimated: boolean;
  cost_micros: number;
  tags: Array<{ key: string; value: string }>;
  latency_ms: number;
  ttft_ms: number | null;
  /** The spend counters' epoch that counted this cost, or null (see packages/gateway-spend). */
  spend_epoch: string | null;
  /** When the spend counters counted it (ISO 8601), and what they counted besides money. */
  counted_at: string | null;
  counted_model_request: boolean;
  counted_in_rate_limit: boolean;
  /** The spend grant it was admitted against (leased admission in packages/gateway-spend), or absent/null. */
  spend_grant?: string | null;
  /** Media requests (issue 27 §2): the unit billed (per_image, per_character, per_second) and how many; absent on token-billed requests. */
  billed_unit?: string | null;
  billed_units?: number | null;
  /** Web searches run for the request (usage.server_tool_use.web_search_requests); absent from records of gateways that predate it. */
  web_search_requests?: number;
  occurred_at: string;
}

/**
 * The usage records one gateway replica finished within a few milliseconds, as one job: the queue's
 * per-job work (its scripts, events, bookkeeping, in the gateway and in the worker) is paid once per
 * batch instead of once per model request. Storing is idempotent on each record's event_id.
 */
export interface GatewayUsageRecordBatchJob {
  /** The batch's own id (the job id). */
  event_id: string;
  records: GatewayUsageRecordJob[];
}

/** A step of a gateway batch (OpenAI-compatible /v1/batches); idempotent on the batch's stored state. */
export interface GatewayBatchJob {
  event_id: string;
  batch_id: string;
  /** start: move the batch to in_progress and enqueue its lines; finalize: write the result files and the final status. */
  step: 'start' | 'finalize';
}

/** One line of a gateway batch. Its result is stored once per (batch_id, line) before the job is acknowledged. */
export interface GatewayBatchLineJob {
  /** Derived from (batch_id, line), so re-enqueuing a line names the same job. */
  event_id: string;
  batch_id: string;
  /** 0-based line number in the input file. */
  line: number;
}

export interface QueuePayloads {
  [QUEUE_NAMES.auditEvents]: AuditEventJob;
  [QUEUE_NAMES.toolCallRecords]: ToolCallRecordJob;
  [QUEUE_NAMES.toolCallRecordBatches]: ToolCallRecordBatchJob;
  [QUEUE_NAMES.registeredUserDeletions]: RegisteredUserDeletedJob;
  [QUEUE_NAMES.unifiedDataSync]: UnifiedDataSyncJob;
  /** Batches; single records from gateways before batching (and their outbox rows) are still read. */
  [QUEUE_NAMES.gatewayUsageRecords]: GatewayUsageRecordBatchJob | GatewayUsageRecordJob;
  [QUEUE_NAMES.gatewayBatches]: GatewayBatchJob;
  [QUEUE_NAMES.gatewayBatchLines]: GatewayBatchLineJob;
}
