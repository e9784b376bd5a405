/**
 * The gateway's OpenAPI document, merged by the edge router into /openapi.json and /docs. Written by
 * hand: the model surfaces are other vendors' wire formats (model-wire parses them), which tsoa cannot
 * describe, and the management routes are few.
 */
const modelError = { $ref: '#/components/schemas/ModelError' };
const detailError = { $ref: '#/components/schemas/DetailError' };
const json = (schema: unknown) => ({ 'application/json': { schema } });
const anyObject = { type: 'object', additionalProperties: true };

const modelResponses = {
  '200': { description: 'The answer in the surface\'s own format; with "stream": true, text/event-stream frames of that surface. X-Gateway-Overhead-Ms carries the gateway\'s own time.', content: { ...json(anyObject), 'text/event-stream': { schema: { type: 'string' } } } },
  '400': { description: 'invalid_request_error with a code (model_required, invalid_model_format, ambiguous_base_model, unknown_tags, customer_mismatch, alias_not_supported, vendor_unavailable, zdr_vendor_unavailable, routing_policy_requires_customer, …)', content: json(modelError) },
  '404': { description: 'routing_policy_not_found: routing_policy_id names no policy of the organization', content: json(modelError) },
  '401': { description: 'Missing, invalid, disabled or management key', content: json(modelError) },
  '402': { description: 'budget_exceeded / payment_failed / api_key_limit_exceeded', content: json(modelError) },
  '403': { description: 'model_not_allowed (permission_error) or blocked_by_policy', content: json(modelError) },
  '413': { description: 'payload_too_large: inline base64 media over 20 MB (25 MB audio)', content: json(modelError) },
  '422': { description: 'Guardrail block: blocked_by_pi_protection (code prompt_injection_detected, or sidecar_error when screening failed and pi_fail_closed) or blocked_by_policy (code dlp_blocked: a data-loss prevention rule on the prompt, the embeddings or count_tokens input, or the non-streamed answer; a streamed answer is screened as it flows and a block ends the stream with the surface\'s error frame); with include_guardrails_metadata the body carries `guardrails`. On /v1/responses also schema failures ({detail: [...]}).', content: json(modelError) },
  '429': { description: 'free_tier_daily_limit, customer key rate limit (no code), vendor rate_limit_error', content: json(modelError) },
  '502': { description: 'provider_error from the vendor (under a routing policy, only when every route failed: the last failure)', content: json(modelError) },
};

function modelPath(summary: string, tag: string, extra: Record<string, unknown> = {}) {
  return { post: { tags: [tag], summary, security: [{ gateway_key: [] }], requestBody: { required: true, content: json(anyObject) }, responses: { ...modelResponses, ...extra } } };
}

/**
 * A management operation. `body`: the request body's schema (true: an untyped object); `response`: the
 * success answer's schema (default an untyped object).
 */
const mgmt = (scope: string, summary: string, method: 'get' | 'post' | 'patch' | 'delete' | 'put', status = '200', parameters: unknown[] = [], body: boolean | Record<string, unknown> = false, response: unknown = anyObject) => ({
  [method]: {
    tags: ['Management'],
    summary,
    // A member's console session needs the permission of the same name; a read, its view_ counterpart.
    security: [{ management_key: [scope] }, { session: [method === 'get' ? scope.replace(/^manage_/, 'view_') : scope] }],
    parameters,
    ...(body ? { requestBody: { required: true, content: json(body === true ? anyObject : body) } } : {}),
    responses: { [status]: { description: 'OK', content: json(response) }, '400': { description: 'Invalid field', content: json(detailError) }, '401': { description: 'Missing or invalid key', content: json(detailError) }, '403': { description: 'Missing scope', content: json(detailError) }, '404': { description: 'Not found', content: json(detailError) } },
  },
});
const p = (name: string, description = '') => ({ name, in: 'path', required: true, schema: { type: 'string' }, description });

const pagingParams = [
  { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500, default: 100 } },
];

const batchErrors = {
  '400': { description: 'invalid_request_error: invalid_batch_file or duplicate_custom_id (the message names the line and its custom_id), invalid_purpose, endpoint_mismatch, invalid_metadata, …', content: json(modelError) },
  '401': { description: 'Missing, invalid, disabled or management key', content: json(modelError) },
  '404': { description: 'file_not_found / batch_not_found (another organization\'s, environment\'s or customer\'s ids are not found either)', content: json(modelError) },
};
const gatewayGet = (tag: string, summary: string, parameters: unknown[] = [], responses: Record<string, unknown> = {}) => ({
  tags: [tag],
  summary,
  security: [{ gateway_key: [] }],
  parameters,
  responses: { '200': { description: 'OK', content: json(anyObject) }, ...batchErrors, ...responses },
});
const listParams = [
  { name: 'after', in: 'query', schema: { type: 'string' }, description: 'last_id of the previous page' },
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
];

/**
 * The management API's request and response bodies (issue 26 §2), read off the handlers in
 * src/management, src/routing, src/guardrails, src/catalog and src/usage. Responses are closed
 * (additionalProperties: false), so test/openapi-live.int.test.ts fails when a live answer carries a
 * field the document does not name, or lacks one it does.
 */
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const str = { type: 'string' };
const nullableStr = { type: 'string', nullable: true };
const time = { type: 'string', format: 'date-time' };
const nullableTime = { type: 'string', format: 'date-time', nullable: true };
const uuid = { type: 'string', format: 'uuid' };
const nullableUuid = { type: 'string', format: 'uuid', nullable: true };
const usdAmount = { type: 'number', minimum: 0 };
const nullableUsd = { type: 'number', minimum: 0, maximum: 1e9, nullable: true };
/** A project's or customer's spend as its budget counts it (README, "Budgets and limits"). */
const budgetSpent = {
  type: 'number',
  minimum: 0,
  description: 'USD drawn on the budget, all time, as admissions count it: settled spend plus the reservations of requests in flight (released or settled within a second of their answer). Counted with or without a budget.',
};
const strings = { type: 'array', items: str };
/** A closed object: every property required unless named in `optional`. */
const closed = (properties: Record<string, unknown>, optional: string[] = []) => ({ type: 'object', additionalProperties: false, required: Object.keys(properties).filter((k) => !optional.includes(k)), properties });
/** A request body: every property optional unless named in `required`. */
const input = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', additionalProperties: false, ...(required.length ? { required } : {}), properties });
const paged = (item: string) => closed({ data: { type: 'array', items: ref(item) }, offset: { type: 'integer', minimum: 0 }, limit: { type: 'integer', minimum: 1 } });
const limitReset = { type: 'string', enum: ['daily', 'weekly', 'monthly', null], nullable: true, description: 'The window the limit counts; null: all time' };
const piMode = { type: 'string', enum: ['off', 'alert', 'block'] };

const keyProperties = {
  hash: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the raw key: its id in every path' },
  name: nullableStr,
  label: { type: 'string', description: 'First characters and last four of the raw key, to recognise it' },
  limit: { ...nullableUsd, description: 'Spend limit in USD over limit_reset; null: none' },
  limit_reset: limitReset,
  usage: { ...usdAmount, description: 'Spend in the limit window (all time without one), USD' },
  usage_daily: usdAmount,
  usage_weekly: usdAmount,
  usage_monthly: usdAmount,
  byok_usage: usdAmount,
  byok_usage_daily: usdAmount,
  byok_usage_weekly: usdAmount,
  byok_usage_monthly: usdAmount,
  limit_remaining: { ...nullableUsd, description: 'limit minus usage (never below 0); null without a limit' },
  allowed_models: { type: 'array', items: str, nullable: true, description: 'null: every model; a trailing * is a prefix' },
  routing_policy_id: nullableUuid,
  disabled: { type: 'boolean' },
  creator_user_id: nullableStr,
  project_id: nullableUuid,
  customer_id: { ...nullableUuid, description: 'Set on customer keys only' },
  rate_limit_rpm: { type: 'integer', minimum: 1, nullable: true, description: 'Customer keys: requests per minute' },
  expires_at: nullableTime,
  created_at: time,
  updated_at: time,
};
const keyWritable = {
  name: { type: 'string', maxLength: 255, nullable: true },
  limit: nullableUsd,
  limit_reset: limitReset,
  allowed_models: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 200 }, maxItems: 500, nullable: true },
  expires_at: nullableTime,
};
const policyFields = {
  name: { type: 'string', minLength: 1, maxLength: 200 },
  description: { type: 'string', maxLength: 2000, nullable: true },
  slug: { type: 'string', pattern: '^[a-z0-9]+(-[a-z0-9]+)*$', maxLength: 64, nullable: true, description: 'Organization policies: the alias @alias/<slug> (made from the name when absent)' },
  strategy: { type: 'string', enum: ['priority', 'weighted', 'lowest_cost', 'lowest_latency'] },
  targets: { type: 'array', minItems: 1, items: ref('RoutingTarget') },
  allowed_vendors: { type: 'array', items: str, nullable: true },
  denied_vendors: { type: 'array', items: str, nullable: true },
  allowed_regions: { type: 'array', items: str, nullable: true },
  zero_data_retention: { type: 'boolean' },
  is_default: { type: 'boolean' },
};
const piSettingsProperties = {
  pi_mode: piMode,
  pi_indirect_mode: piMode,
  pi_block_threshold: { type: 'number', minimum: 0, maximum: 1 },
  pi_pass_threshold: { type: 'number', minimum: 0, maximum: 1 },
  pi_allowlist_patterns: strings,
  pi_fail_closed: { type: 'boolean' },
  pi_log_full_text_on_block: { type: 'boolean' },
  pi_input_action: { type: 'string', enum: ['block'] },
};
/** OpenAPI 3.0: a nullable enum lists null among its values too. */
const nullable = (schema: Record<string, unknown>) => ({ ...schema, nullable: true, ...(Array.isArray(schema.enum) ? { enum: [...(schema.enum as unknown[]), null] } : {}) });
const dlpRuleFields = {
  name: { type: 'string', minLength: 1 },
  detector: { type: 'string', enum: ['EMAIL_ADDRESS', 'PHONE_NUMBER', 'CREDIT_CARD', 'US_SSN', 'IBAN', 'IP_ADDRESS', 'SECRET', 'CUSTOM'] },
  pattern: { type: 'string', description: 'CUSTOM only: a regular expression source' },
  flags: { type: 'string', description: 'CUSTOM only: among i, m, s, u' },
  label: { type: 'string', pattern: '^[A-Z0-9_]{1,40}$', description: 'CUSTOM only: the redaction label' },
  direction: { type: 'string', enum: ['inbound', 'outbound', 'both'], description: 'inbound: prompts; outbound: answers' },
  action: { type: 'string', enum: ['allow', 'redact', 'block'] },
  enabled: { type: 'boolean' },
};
const usageNumbers = {
  requests: { type: 'integer', minimum: 0 },
  failed_requests: { type: 'integer', minimum: 0 },
  input_tokens: { type: 'integer', minimum: 0 },
  cached_input_tokens: { type: 'integer', minimum: 0 },
  output_tokens: { type: 'integer', minimum: 0 },
  reasoning_tokens: { type: 'integer', minimum: 0 },
  web_search_requests: { type: 'integer', minimum: 0, description: 'Web searches run (the gateway\'s engines and vendors\' own search), as usage.server_tool_use.web_search_requests' },
  cost_usd: usdAmount,
  byok_cost_usd: usdAmount,
};
const price = { type: 'object', additionalProperties: false, properties: Object.fromEntries(['input_per_million', 'output_per_million', 'cached_input_per_million', 'cache_write_per_million', 'cache_write_1h_per_million', 'per_image', 'per_character', 'per_second'].map((k) => [k, usdAmount])) };
const pricingUnit = { type: 'string', enum: ['per_million_tokens', 'per_image', 'per_character', 'per_second'] };
const capabilities = closed(
  {
    input: { type: 'array', items: { type: 'string', enum: ['text', 'image', 'document', 'audio', 'video'] } },
    output: strings,
    supports_tool_calling: { type: 'boolean' },
    supports_tool_choice: { type: 'boolean' },
    supports_structured_outputs: { type: 'boolean' },
    streaming: { type: 'boolean' },
    reasoning_efforts: { type: 'array', items: { type: 'string', enum: ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] } },
  },
  ['reasoning_efforts'],
);

const unixSeconds = { type: 'integer', nullable: true, description: 'Unix seconds; null until it happens' };
const organizationBatch = {
  id: uuid,
  object: { type: 'string', enum: ['batch'] },
  endpoint: str,
  errors: { type: 'object', nullable: true, description: 'Why the batch failed validation: {object: list, data: [{code, message, line?}]}' },
  input_file_id: uuid,
  completion_window: str,
  status: { type: 'string', enum: ['validating', 'failed', 'in_progress', 'finalizing', 'completed', 'expired', 'cancelling', 'cancelled'] },
  output_file_id: nullableUuid,
  error_file_id: nullableUuid,
  created_at: { type: 'integer' },
  in_progress_at: unixSeconds,
  expires_at: unixSeconds,
  finalizing_at: unixSeconds,
  completed_at: unixSeconds,
  failed_at: unixSeconds,
  expired_at: unixSeconds,
  cancelling_at: unixSeconds,
  cancelled_at: unixSeconds,
  request_counts: closed({ total: { type: 'integer', minimum: 0 }, completed: { type: 'integer', minimum: 0 }, failed: { type: 'integer', minimum: 0 } }),
  metadata: { type: 'object', nullable: true, additionalProperties: { type: 'string' } },
  model: { type: 'string', description: 'Once finalized, when every answered line named the same model' },
  usage: { type: 'object', description: 'Once finalized: the summed token usage' },
  environment: { type: 'string', enum: ['production', 'test'] },
  key_hash: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'The gateway key that made the batch (its id in /v1/keys/{hash})' },
  customer_id: { ...nullableUuid, description: "The customer whose key made it; null for the organization's own keys" },
};
const filePreview = {
  type: 'object',
  nullable: true,
  additionalProperties: false,
  required: ['file_id', 'lines', 'truncated'],
  description: 'The first lines of the result file (null until the batch has one): output lines {id, custom_id, response, error}, error lines {id, custom_id, response, error}',
  properties: { file_id: uuid, lines: { type: 'array', maxItems: 50, items: {} }, truncated: { type: 'boolean', description: 'The file holds more than the preview (50 lines or 256 KB)' } },
};

const managementSchemas: Record<string, unknown> = {
  Deleted: closed({ deleted: { type: 'boolean', enum: [true] } }),
  OrganizationBatch: closed(organizationBatch, ['model', 'usage']),
  OrganizationBatchDetail: closed({ ...organizationBatch, output_preview: filePreview, error_preview: filePreview }, ['model', 'usage']),
  OrganizationBatchList: closed({ object: { type: 'string', enum: ['list'] }, environment: { type: 'string', enum: ['production', 'test'] }, data: { type: 'array', items: ref('OrganizationBatch') }, first_id: nullableUuid, last_id: nullableUuid, has_more: { type: 'boolean' } }),
  GatewayKey: closed(keyProperties),
  GatewayKeyCreated: closed({ ...keyProperties, key: { type: 'string', description: 'The raw key (pbgw_…): returned once, never again' } }),
  GatewayKeyData: closed({ data: ref('GatewayKey') }),
  GatewayKeyList: closed({ data: { type: 'array', items: ref('GatewayKey') }, offset: { type: 'integer', minimum: 0 }, limit: { type: 'integer', minimum: 1 }, total: { type: 'integer', minimum: 0, description: 'Keys matching the filters' } }),
  GatewayKeyCreate: input({ ...keyWritable, routing_policy_id: nullableUuid, disabled: { type: 'boolean' }, project_id: { ...nullableUuid, description: 'Fixed once the key is made' } }),
  GatewayKeyUpdate: input({ ...keyWritable, routing_policy_id: nullableUuid, disabled: { type: 'boolean' } }),
  CustomerKeyCreate: input({ ...keyWritable, rate_limit_rpm: { type: 'integer', minimum: 1, maximum: 1_000_000, nullable: true } }),
  Project: closed({ id: uuid, name: str, budget: { ...nullableUsd, description: 'USD; null: no budget' }, spent: budgetSpent, created_at: time, updated_at: time }),
  ProjectList: paged('Project'),
  ProjectCreate: input({ name: { type: 'string', minLength: 1, maxLength: 255 }, budget: nullableUsd }, ['name']),
  ProjectUpdate: input({ name: { type: 'string', minLength: 1, maxLength: 255 }, budget: nullableUsd }),
  Customer: closed({ id: uuid, name: nullableStr, budget: nullableUsd, spent: budgetSpent, active: { type: 'boolean' }, created_at: time, updated_at: time }),
  CustomerList: paged('Customer'),
  CustomerCreate: input({ id: { ...uuid, description: "Your own id of the customer (a UUID)" }, name: { type: 'string', maxLength: 255, nullable: true }, budget: nullableUsd, active: { type: 'boolean' } }, ['id']),
  CustomerUpdate: input({ name: { type: 'string', maxLength: 255, nullable: true }, budget: nullableUsd, active: { type: 'boolean' } }),
  VendorKey: closed({ vendor: str, key_last4: { type: 'string', maxLength: 4, description: 'The last four characters; the key itself is never returned' }, base_url: nullableStr, updated_at: time }),
  VendorKeyList: closed({ data: { type: 'array', items: ref('VendorKey') } }),
  VendorKeyPut: input({ api_key: { type: 'string', minLength: 1, maxLength: 4096, writeOnly: true }, base_url: { type: 'string', format: 'uri', nullable: true, description: 'Required for self-hosted vendors' } }, ['api_key']),
  Tag: closed({ id: uuid, object: { type: 'string', enum: ['tag'] }, tag_key: str, tag_value: str, org_id: uuid, is_global: { type: 'boolean' }, created_at: time, updated_at: time }),
  TagList: closed({ object: { type: 'string', enum: ['list'] }, data: { type: 'array', items: ref('Tag') }, has_more: { type: 'boolean' }, next_cursor: nullableStr }),
  TagCreate: input({ key: { type: 'string', minLength: 1, maxLength: 100 }, value: { type: 'string', minLength: 1, maxLength: 200 } }, ['key', 'value']),
  Blocklist: closed({ models: { type: 'array', items: str, description: 'provider/model patterns; a trailing * is a prefix' } }),
  BlocklistPut: input({ models: { type: 'array', maxItems: 1000, items: { type: 'string', minLength: 1, maxLength: 200 } } }, ['models']),
  RoutingTarget: closed({ model: str, vendors: { type: 'array', items: str, nullable: true }, weight: { type: 'integer', minimum: 1, nullable: true, description: 'weighted only' } }, ['vendors', 'weight']),
  RoutingPolicy: closed({
    id: uuid,
    object: { type: 'string', enum: ['routing_policy'] },
    name: str,
    description: nullableStr,
    slug: nullableStr,
    model: { type: 'string', nullable: true, description: '@alias/<slug>: the model name that routes through the policy' },
    strategy: policyFields.strategy,
    targets: { type: 'array', items: ref('RoutingTarget') },
    allowed_vendors: { type: 'array', items: str, nullable: true },
    denied_vendors: strings,
    zero_data_retention: { type: 'boolean' },
    allowed_regions: { type: 'array', items: str, nullable: true },
    project_id: nullableUuid,
    customer_id: nullableUuid,
    is_default: { type: 'boolean' },
    created_at: time,
    updated_at: time,
  }),
  RoutingPolicyList: closed({ object: { type: 'string', enum: ['list'] }, data: { type: 'array', items: ref('RoutingPolicy') }, offset: { type: 'integer', minimum: 0 }, limit: { type: 'integer', minimum: 1 } }),
  RoutingPolicyCreate: input({ ...policyFields, project_id: nullableUuid, customer_id: nullableUuid }, ['name', 'strategy', 'targets']),
  RoutingPolicyUpdate: input(policyFields),
  RoutingPolicyDeleted: closed({ id: uuid, deleted: { type: 'boolean', enum: [true] } }),
  PiSettings: closed(piSettingsProperties),
  PiSettingsPut: input(piSettingsProperties),
  PiOverride: closed(Object.fromEntries(['pi_mode', 'pi_indirect_mode', 'pi_block_threshold', 'pi_allowlist_patterns', 'pi_fail_closed', 'pi_log_full_text_on_block'].map((k) => [k, nullable(piSettingsProperties[k as keyof typeof piSettingsProperties])]))),
  PiOverridePut: input(Object.fromEntries(['pi_mode', 'pi_indirect_mode', 'pi_block_threshold', 'pi_allowlist_patterns', 'pi_fail_closed', 'pi_log_full_text_on_block'].map((k) => [k, nullable(piSettingsProperties[k as keyof typeof piSettingsProperties])]))),
  PiCheckSetting: closed({ enabled: { type: 'boolean' } }),
  PiCheckRequest: input({ input: { oneOf: [{ type: 'string', minLength: 1, maxLength: 10_000 }, { type: 'array', minItems: 1, maxItems: 50, items: { type: 'string', minLength: 1, maxLength: 10_000 } }] }, customer: { type: 'string', format: 'uuid', nullable: true } }, ['input']),
  PiCheckResult: closed({
    mode: piMode,
    block_threshold: { type: 'number' },
    results: { type: 'array', items: closed({ index: { type: 'integer', minimum: 0 }, would_block: { type: 'boolean' }, score: { type: 'number' }, matched_patterns: strings, allowlisted: { type: 'boolean' } }) },
  }),
  DlpRule: closed({ id: uuid, ...dlpRuleFields }, ['pattern', 'flags', 'label']),
  DlpRuleList: closed({ object: { type: 'string', enum: ['list'] }, data: { type: 'array', items: ref('DlpRule') } }),
  DlpRulesPut: input({ rules: { type: 'array', maxItems: 50, items: input(dlpRuleFields, ['name', 'detector', 'direction', 'action']) } }, ['rules']),
  UsageDay: closed(
    {
      date: { type: 'string', format: 'date' },
      key: { type: 'string', nullable: true, description: 'group_by=key: the key hash' },
      model: { type: 'string', nullable: true },
      project: { type: 'string', nullable: true },
      customer: { type: 'string', nullable: true },
      tag: { type: 'string', nullable: true, description: 'group_by=tag: key=value' },
      ...usageNumbers,
    },
    ['key', 'model', 'project', 'customer', 'tag'],
  ),
  Usage: closed({ start_date: { type: 'string', format: 'date' }, end_date: { type: 'string', format: 'date' }, group_by: { type: 'string', enum: ['key', 'model', 'project', 'customer', 'tag'] }, data: { type: 'array', items: ref('UsageDay') } }),
  ModelVendorRoute: closed({
    vendor_model: str,
    context_window: { type: 'integer' },
    max_output_tokens: { type: 'integer' },
    availability_status: { type: 'string', enum: ['available'] },
    capabilities,
    pricing: { type: 'object', required: ['currency', 'unit'], properties: { currency: { type: 'string', enum: ['USD'] }, unit: pricingUnit, ...price.properties }, additionalProperties: { ...price, description: 'Other service tiers (flex, priority, batch…) by name' } },
    service_tiers: strings,
    zero_data_retention: { type: 'boolean' },
    region: nullableStr,
    self_hosted: { type: 'boolean' },
  }),
  Model: closed({
    id: { type: 'string', description: 'provider/model' },
    object: { type: 'string', enum: ['model'] },
    created: { type: 'integer' },
    owned_by: str,
    model: str,
    provider: str,
    display_name: str,
    type: { type: 'string', enum: ['chat', 'embedding', 'image', 'speech', 'transcription'] },
    input_modalities: strings,
    output_modalities: strings,
    pricing_unit: pricingUnit,
    availability_status: { type: 'string', enum: ['available'] },
    created_at: str,
    updated_at: str,
    context_window: { type: 'integer' },
    max_output_tokens: { type: 'integer' },
    vendors: { type: 'object', additionalProperties: ref('ModelVendorRoute'), description: 'The vendors offering it, by vendor id, with their prices (USD)' },
  }),
  ModelList: closed({ object: { type: 'string', enum: ['list'] }, data: { type: 'array', items: ref('Model') }, has_more: { type: 'boolean' }, next_cursor: nullableStr }),
};

/** OpenAI's Files and Batches, at {gateway_url}/v1 and {gateway_url}/v1/openai (src/batches). */
function batchPaths(base: string) {
  return {
    [`${base}/files`]: {
      post: {
        ...gatewayGet('Batches', 'Upload a batch input file: multipart/form-data with file (JSONL: one {custom_id, method: "POST", url: /v1/chat/completions | /v1/embeddings | /v1/responses, body} a line, custom_ids unique, no stream) and purpose "batch". Up to GATEWAY_BATCH_FILE_MAX_BYTES (default 50 MB) and GATEWAY_BATCH_MAX_LINES (default 50,000) lines. Returns the file object.', [], {
          '413': { description: 'file_too_large', content: json(modelError) },
        }),
        requestBody: { required: true, content: { 'multipart/form-data': { schema: { type: 'object', required: ['file', 'purpose'], properties: { file: { type: 'string', format: 'binary' }, purpose: { type: 'string', enum: ['batch'] } } } } } },
      },
      get: gatewayGet('Batches', 'List files, newest first {object: list, data, first_id, last_id, has_more}', [...listParams, { name: 'purpose', in: 'query', schema: { type: 'string', enum: ['batch', 'batch_output', 'batch_error'] } }]),
    },
    [`${base}/files/{file_id}`]: {
      get: gatewayGet('Batches', 'A file object {id, object: file, bytes, created_at, filename, purpose, status: processed}', [p('file_id')]),
      delete: gatewayGet('Batches', 'Delete a file {id, object: file, deleted: true}; batches made from it keep their lines', [p('file_id')]),
    },
    [`${base}/files/{file_id}/content`]: {
      get: { ...gatewayGet('Batches', "A file's content (application/jsonl). Output lines: {id, custom_id, response: {status_code, request_id, body}, error: null}; error-file lines: {id, custom_id, response (null when the line never got one), error: {code, message}}", [p('file_id')]), responses: { '200': { description: 'JSONL', content: { 'application/jsonl': { schema: { type: 'string' } } } }, ...batchErrors } },
    },
    [`${base}/batches`]: {
      post: {
        ...gatewayGet('Batches', 'Create a batch {input_file_id, endpoint, completion_window: "24h", metadata?}; every line runs as a request of this key (X-Svc-Customer, X-Project-Id and X-Svc-Routing-Policy-Id sent here apply to every line). Returns the batch object in status validating.', [], {
          '429': { description: 'too_many_open_batches (25 open batches per organization), or batch_submit_busy with Retry-After: 5 (concurrent submits of the organization)', content: json(modelError) },
        }),
        requestBody: { required: true, content: json(anyObject) },
      },
      get: gatewayGet('Batches', 'List batches, newest first {object: list, data, first_id, last_id, has_more}', listParams),
    },
    [`${base}/batches/{batch_id}`]: {
      get: gatewayGet('Batches', 'The batch object: status validating | in_progress | finalizing | completed | failed | cancelling | cancelled | expired, request_counts {total, completed, failed}, output_file_id, error_file_id, timestamps in Unix seconds; once finalized, model (when every answered line named the same) and usage {input_tokens, input_tokens_details.cached_tokens, output_tokens, output_tokens_details.reasoning_tokens, total_tokens}', [p('batch_id')]),
    },
    [`${base}/batches/{batch_id}/cancel`]: {
      post: gatewayGet('Batches', 'Cancel: lines not started never run; the batch is cancelling until running lines finish, then cancelled with the files of what ran', [p('batch_id')], {
        '409': { description: 'batch_not_cancellable: the batch is already finished', content: json(modelError) },
      }),
    },
  };
}

/** GET and DELETE of a stored response (README, "Stored responses"): neither is billed. */
function storedResponsePath(tag: string, summary: string): Record<string, unknown> {
  const notFound = { '404': { description: 'response_not_found: never stored, deleted, expired (an hour after its last use), or another organization\'s or environment\'s', content: json(modelError) } };
  return {
    get: { ...gatewayGet(tag, summary, [p('response_id', 'resp_…')], notFound) },
    delete: { ...gatewayGet(tag, 'Delete a stored turn before it expires {id, object: response.deleted, deleted: true}; a later previous_response_id naming it is 400 previous_response_id_unsupported', [p('response_id', 'resp_…')], notFound) },
  };
}

export const gatewayDocument = {
  openapi: '3.0.0',
  info: { title: 'Patchbay model gateway', version: '1.0.0', description: 'One endpoint for many model vendors: native responses, OpenAI- and Anthropic-compatible surfaces, embeddings, OpenAI-compatible files and batches, the catalog, gateway keys and their management API, usage.' },
  components: {
    securitySchemes: {
      gateway_key: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <gateway API key> (x-api-key also works on the Anthropic surface)' },
      management_key: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer mgmt_… (made with pnpm --silent patchbay mgmt-key create)' },
      session: { type: 'apiKey', in: 'cookie', name: 'patchbay_session', description: "A member's console session (POST /api/v1/session). Each management route names the permission a member needs; state-changing requests also need X-CSRF-Token and a same-origin Origin. Model endpoints never take a session." },
    },
    schemas: {
      ModelError: { type: 'object', properties: { error: { type: 'object', properties: { type: { type: 'string' }, message: { type: 'string' }, code: { type: 'string', nullable: true }, param: { type: 'string', nullable: true }, source: { type: 'string', nullable: true }, provider: { type: 'string', nullable: true } } } } },
      DetailError: { type: 'object', properties: { detail: { oneOf: [{ type: 'string' }, { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } } }] } } },
      ...managementSchemas,
    },
  },
  paths: {
    '/v1/responses': modelPath('Native responses (stream: response.stream snapshots, response.done, response.error)', 'Models', { '422': { description: 'Schema failure: {detail: [...]}' } }),
    '/v1/chat/completions': modelPath('OpenAI chat completions', 'OpenAI-compatible'),
    '/v1/openai/chat/completions': modelPath('OpenAI chat completions (baseURL {gateway_url}/v1/openai)', 'OpenAI-compatible'),
    '/v1/openai/responses': modelPath("OpenAI responses (routes to OpenAI are sent to its Responses API; store defaults to true, see README 'Stored responses')", 'OpenAI-compatible'),
    '/v1/responses/{response_id}': storedResponsePath('Models', 'A stored turn {id, object: response.stored, created_at, model, vendor, previous_response_id, input (the whole conversation up to it, as input items), output}'),
    '/v1/openai/responses/{response_id}': storedResponsePath('OpenAI-compatible', 'The stored response object as POST answered it (store: true), for the OpenAI SDK\'s responses.retrieve'),
    '/v1/embeddings': modelPath('Embeddings (encoding_format float or base64)', 'OpenAI-compatible'),
    '/v1/openai/embeddings': modelPath('Embeddings', 'OpenAI-compatible'),
    '/v1/messages': modelPath('Anthropic messages', 'Anthropic-compatible'),
    '/v1/anthropic/v1/messages': modelPath('Anthropic messages (baseURL {gateway_url}/v1/anthropic)', 'Anthropic-compatible'),
    '/v1/messages/count_tokens': modelPath('Anthropic count_tokens', 'Anthropic-compatible'),
    '/v1/anthropic/v1/messages/count_tokens': modelPath('Anthropic count_tokens', 'Anthropic-compatible'),
    '/v1/models': { get: { tags: ['Models'], summary: "Models offered (a vendor with no key configured is not offered); each vendor route shows its prices, zero_data_retention, region and self_hosted. A gateway key, or a member's console session (any signed-in member: the catalog as the organization's keys see it)", security: [{ gateway_key: [] }, { session: [] }], parameters: [{ name: 'zero_data_retention', in: 'query', required: false, description: 'true: only the vendor routes that retain nothing', schema: { type: 'string', enum: ['true', 'false'] } }, { name: 'provider', in: 'query', required: false, description: 'Only this provider\'s models (openai, anthropic, …)', schema: { type: 'string' } }], responses: { '200': { description: '{object: list, data: [model]}', content: json(ref('ModelList')) }, '401': { description: 'Missing, invalid, disabled or management key', content: json(modelError) } } } },
    '/v1/models/{model}': { get: { tags: ['Models'], summary: "One model; the id contains a slash (openai/gpt-4o), plain or encoded as %2F. A gateway key or a member's console session", security: [{ gateway_key: [] }, { session: [] }], parameters: [p('model', 'provider/model')], responses: { '200': { description: 'The model', content: json(ref('Model')) }, '401': { description: 'Missing, invalid, disabled or management key', content: json(modelError) }, '404': { description: 'Not offered', content: json(modelError) } } } },
    '/v1/openai/models': { get: { tags: ['OpenAI-compatible'], summary: 'Models (OpenAI SDK)', security: [{ gateway_key: [] }], responses: { '200': { description: 'List', content: json(ref('ModelList')) } } } },
    '/v1/keys': {
      ...mgmt('manage_api_keys', 'Create a gateway key (201; the raw key in `key`, once)', 'post', '201', [], ref('GatewayKeyCreate'), ref('GatewayKeyCreated')),
      ...mgmt('manage_api_keys', "List the organization's keys (customer keys included), searched, filtered and sorted by the server, offset-paged", 'get', '200', [
        { name: 'search', in: 'query', schema: { type: 'string', maxLength: 200 }, description: 'Part of the name or of the label (pbgw_… or the last four characters), any case' },
        { name: 'project_id', in: 'query', schema: { type: 'string', format: 'uuid' }, description: 'Keys of this project only' },
        { name: 'customer_id', in: 'query', schema: { type: 'string' }, description: 'A customer\'s UUID: its keys only; `none`: organization keys only' },
        { name: 'disabled', in: 'query', schema: { type: 'string', enum: ['true', 'false'] } },
        { name: 'expiry', in: 'query', schema: { type: 'string', enum: ['expired', 'active', 'never'] }, description: 'expired: past expires_at; active: not expired (or no expiry); never: no expiry' },
        { name: 'min_spend', in: 'query', schema: { type: 'number', minimum: 0 }, description: 'Keys whose spend this UTC month (usage_monthly) is at least this many USD' },
        { name: 'sort', in: 'query', schema: { type: 'string', enum: ['created_at', '-created_at', 'name', '-name', 'expires_at', '-expires_at', 'spend', '-spend'], default: '-created_at' }, description: 'spend: this UTC month\'s spend, from the usage records' },
        { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500, default: 100 } },
      ], false, ref('GatewayKeyList')),
    },
    '/v1/keys/{hash}': { ...mgmt('manage_api_keys', 'Get a key', 'get', '200', [p('hash', 'SHA-256 of the raw key, 64 hex')], false, ref('GatewayKeyData')), ...mgmt('manage_api_keys', 'Update a key (null clears; project_id is 400 project_id_immutable)', 'patch', '200', [p('hash')], ref('GatewayKeyUpdate'), ref('GatewayKeyData')), ...mgmt('manage_api_keys', 'Delete a key', 'delete', '200', [p('hash')], false, ref('Deleted')) },
    '/v1/keys/{hash}/rotate': mgmt('manage_api_keys', 'Rotate a key: a new secret (in `key`, once) with the same settings replaces it; the old key stops working within a second. The hash (its id) changes and spend starts from zero', 'post', '200', [p('hash')], false, ref('GatewayKeyCreated')),
    '/v1/key': { get: { tags: ['Management'], summary: 'The calling gateway key', security: [{ gateway_key: [] }], responses: { '200': { description: '{data: key}', content: json(ref('GatewayKeyData')) }, '401': { description: 'Missing or invalid key', content: json(detailError) } } } },
    '/v1/projects': { ...mgmt('manage_projects', 'Create a project {name, budget}', 'post', '201', [], ref('ProjectCreate'), ref('Project')), ...mgmt('manage_projects', 'List projects, newest first (offset, limit)', 'get', '200', pagingParams, false, ref('ProjectList')) },
    '/v1/projects/{id}': { ...mgmt('manage_projects', 'Get a project', 'get', '200', [p('id')], false, ref('Project')), ...mgmt('manage_projects', 'Update a project', 'patch', '200', [p('id')], ref('ProjectUpdate'), ref('Project')), ...mgmt('manage_projects', 'Delete a project (409 while it has keys)', 'delete', '200', [p('id')], false, ref('Deleted')) },
    '/v1/customers': { ...mgmt('manage_customers', 'Create a customer {id (UUID), name, budget, active}', 'post', '201', [], ref('CustomerCreate'), ref('Customer')), ...mgmt('manage_customers', 'List customers, newest first (offset, limit)', 'get', '200', pagingParams, false, ref('CustomerList')) },
    '/v1/customers/{customer_id}': { ...mgmt('manage_customers', 'Get a customer', 'get', '200', [p('customer_id')], false, ref('Customer')), ...mgmt('manage_customers', 'Update a customer', 'patch', '200', [p('customer_id')], ref('CustomerUpdate'), ref('Customer')), ...mgmt('manage_customers', 'Delete a customer and its keys', 'delete', '200', [p('customer_id')], false, ref('Deleted')) },
    '/v1/customers/{customer_id}/api-keys': { ...mgmt('manage_customers', 'Create a customer API key (management key or organization gateway key; rate_limit_rpm)', 'post', '201', [p('customer_id')], ref('CustomerKeyCreate'), ref('GatewayKeyCreated')), ...mgmt('manage_customers', "List a customer's keys, newest first (offset, limit)", 'get', '200', [p('customer_id'), ...pagingParams], false, ref('GatewayKeyList')) },
    '/v1/vendor-keys': mgmt('manage_vendor_keys', 'BYOK vendor keys (never returned; last 4 characters only)', 'get', '200', [], false, ref('VendorKeyList')),
    '/v1/vendor-keys/{vendor}': { ...mgmt('manage_vendor_keys', 'Set the organization\'s own key {api_key, base_url?} for a vendor', 'put', '200', [p('vendor')], ref('VendorKeyPut'), ref('VendorKey')), ...mgmt('manage_vendor_keys', 'Remove it', 'delete', '200', [p('vendor')], false, ref('Deleted')) },
    '/v1/tags': { get: { tags: ['Management'], summary: "The organization's tags (any key of the organization)", security: [{ gateway_key: [] }, { management_key: [] }, { session: ['view_policies'] }], responses: { '200': { description: '{object: list, data: [tag]}', content: json(ref('TagList')) }, '401': { description: 'Missing or invalid key', content: json(detailError) }, '403': { description: 'Missing permission', content: json(detailError) } } }, ...mgmt('manage_policies', 'Define a tag {key, value}', 'post', '201', [], ref('TagCreate'), ref('Tag')) },
    '/v1/organization/batches': mgmt(
      'manage_api_keys',
      "Every gateway key's and customer's batches of one environment, newest first (the console's view; OpenAI's /v1/batches stays the calling key's own). A session shows its own environment; a management key passes environment (default production). Filters: status, key_hash; cursor: after = last_id",
      'get',
      '200',
      [
        { name: 'environment', in: 'query', schema: { type: 'string', enum: ['production', 'test'] } },
        { name: 'status', in: 'query', schema: organizationBatch.status },
        { name: 'key_hash', in: 'query', schema: organizationBatch.key_hash },
        { name: 'after', in: 'query', schema: uuid },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
      ],
      false,
      ref('OrganizationBatchList'),
    ),
    '/v1/organization/batches/{batch_id}': mgmt('manage_api_keys', "A batch of the organization with the first lines of its output and error files", 'get', '200', [p('batch_id'), { name: 'environment', in: 'query', schema: { type: 'string', enum: ['production', 'test'] } }], false, ref('OrganizationBatchDetail')),
    '/v1/tags/{id}': mgmt('manage_policies', 'Delete a tag', 'delete', '200', [p('id')], false, ref('Deleted')),
    '/v1/blocklist': { ...mgmt('manage_policies', "The organization's blocked models", 'get', '200', [], false, ref('Blocklist')), ...mgmt('manage_policies', 'Replace the blocklist {models: [...]} (trailing * is a prefix)', 'put', '200', [], ref('BlocklistPut'), ref('Blocklist')) },
    '/v1/routing-policies': {
      ...mgmt('manage_routing', 'Create a routing policy {name, strategy: priority|weighted|lowest_cost|lowest_latency, targets: [{model, vendors?, weight?}], allowed_vendors?, denied_vendors?, allowed_regions?, zero_data_retention?, project_id? | customer_id?, slug?, is_default?} (201; organization policies get model "@alias/<slug>"; the scope\'s first policy becomes its default)', 'post', '201', [], ref('RoutingPolicyCreate'), ref('RoutingPolicy')),
      ...mgmt('view_routing', 'List routing policies, newest first (view_routing or manage_routing, or an organization gateway key)', 'get', '200', pagingParams, false, ref('RoutingPolicyList')),
    },
    '/v1/routing-policies/{policy_id}': {
      ...mgmt('view_routing', 'Get a routing policy', 'get', '200', [p('policy_id')], false, ref('RoutingPolicy')),
      ...mgmt('manage_routing', 'Update a routing policy (omitted fields unchanged; the scope cannot change)', 'patch', '200', [p('policy_id')], ref('RoutingPolicyUpdate'), ref('RoutingPolicy')),
      ...mgmt('manage_routing', 'Delete a routing policy (409 while API keys are bound to it)', 'delete', '200', [p('policy_id')], false, ref('RoutingPolicyDeleted')),
    },
    '/v1/routing-policies/{policy_id}/set-default': mgmt('manage_routing', "Make the policy its scope's default (the organization's, the project's or the customer's)", 'post', '200', [p('policy_id')], false, ref('RoutingPolicy')),
    '/v1/organization/pi-settings': {
      ...mgmt('view_guardrails', "The organization's prompt-injection settings {pi_mode, pi_indirect_mode (off|alert|block), pi_block_threshold, pi_pass_threshold, pi_allowlist_patterns, pi_fail_closed, pi_log_full_text_on_block, pi_input_action}", 'get', '200', [], false, ref('PiSettings')),
      ...mgmt('manage_guardrails', 'Replace them (PUT replaces the whole object; an omitted field takes its default; 400 lists every problem)', 'put', '200', [], ref('PiSettingsPut'), ref('PiSettings')),
    },
    '/v1/customers/{customer_id}/pi-settings': {
      ...mgmt('view_guardrails', "A customer's sparse override (null: inherited)", 'get', '200', [p('customer_id')], false, ref('PiOverride')),
      ...mgmt('manage_guardrails', "Set a customer's override (absent or null inherits, {} restores inheritance; pi_pass_threshold not overridable; allowlist patterns add to the organization's)", 'put', '200', [p('customer_id')], ref('PiOverridePut'), ref('PiOverride')),
    },
    '/v1/organization/dlp-rules': {
      ...mgmt('view_guardrails', "The organization's data-loss prevention rules for prompts (inbound) and answers (outbound)", 'get', '200', [], false, ref('DlpRuleList')),
      ...mgmt('manage_guardrails', 'Replace them {rules: [{name, detector (EMAIL_ADDRESS|PHONE_NUMBER|CREDIT_CARD|US_SSN|IBAN|IP_ADDRESS|SECRET|CUSTOM), pattern?, flags?, label?, direction (inbound|outbound|both), action (allow|redact|block), enabled?}]} (at most 50, in precedence order; each rule gets a new id)', 'put', '200', [], ref('DlpRulesPut'), ref('DlpRuleList')),
    },
    '/v1/organization/pi-check': {
      ...mgmt('view_guardrails', 'Whether the check endpoint is enabled {enabled}', 'get', '200', [], false, ref('PiCheckSetting')),
      ...mgmt('manage_guardrails', 'Enable or disable the check endpoint {enabled: boolean}', 'put', '200', [], ref('PiCheckSetting'), ref('PiCheckSetting')),
    },
    '/v1/prompt-injection/check': {
      post: {
        tags: ['Guardrails'],
        summary: 'Screen texts as block mode would {input: text | 1..50 texts of 1..10,000 characters, customer?} → {mode, block_threshold, results: [{index, would_block, score, matched_patterns, allowlisted}]} (organization gateway key, or management key with view_guardrails)',
        security: [{ gateway_key: [] }, { management_key: ['view_guardrails'] }, { session: ['view_guardrails'] }],
        requestBody: { required: true, content: json(ref('PiCheckRequest')) },
        responses: { '200': { description: 'Results in input order', content: json(ref('PiCheckResult')) }, '400': { description: 'Invalid input', content: json(detailError) }, '401': { description: 'Missing or invalid key', content: json(detailError) }, '403': { description: 'pi_check_not_enabled, or missing scope', content: json(detailError) } },
      },
    },
    ...batchPaths('/v1'),
    ...batchPaths('/v1/openai'),
    '/v1/usage': mgmt('view_billing', 'Daily totals: start_date, end_date (YYYY-MM-DD, else 400 invalid_date), group_by key|model|project|customer|tag', 'get', '200', [
      { name: 'start_date', in: 'query', schema: { type: 'string', format: 'date' } },
      { name: 'end_date', in: 'query', schema: { type: 'string', format: 'date' } },
      { name: 'group_by', in: 'query', schema: { type: 'string', enum: ['key', 'model', 'project', 'customer', 'tag'] } },
    ], false, ref('Usage')),
  },
};

/**
 * Web search (issue 27 §1) on every chat surface: the svc:web_search tool, its parameters and
 * provider_options.web_search, described on each chat path's request body (README "Web search").
 */
const webSearchParameters = {
  type: 'object',
  additionalProperties: false,
  description: 'Anything else is 400 invalid_server_tool_parameters.',
  properties: {
    engine: { type: 'string', enum: ['auto', 'searxng', 'exa', 'tavily', 'brave'], default: 'auto', description: 'auto tries the configured engines in the order searxng, exa, tavily, brave (moving on past a 429, 5xx, timeout or network failure). Another name: 400 unsupported_web_search_engine; a named engine the operator did not configure (PATCHBAY_SEARCH_<ENGINE>_API_KEY / _BASE_URL), or auto with none: 400 web_search_unavailable.' },
    max_results: { type: 'integer', minimum: 1, maximum: 25, default: 5, description: 'Results per search; out of range: 400 invalid_server_tool_parameters.' },
    allowed_domains: { type: 'array', items: { type: 'string' }, maxItems: 100, description: 'Only these hosts (subdomains included). Not with excluded_domains (400 invalid_server_tool_parameters).' },
    excluded_domains: { type: 'array', items: { type: 'string' }, maxItems: 100, description: 'Never these hosts (blocked_domains accepted).' },
    search_context_size: { type: 'string', enum: ['low', 'medium', 'high'], default: 'medium', description: 'Page text per result: 400, 1,200 or 3,000 characters; another value: 400 invalid_search_context_size.' },
    user_location: { type: 'object', properties: { type: { type: 'string', enum: ['approximate'] }, country: { type: 'string', pattern: '^[A-Za-z]{2}$' }, region: { type: 'string' }, city: { type: 'string' }, timezone: { type: 'string' } } },
    max_searches: { type: 'integer', minimum: 1, maximum: 20, default: 5, description: 'Searches per request (max_uses accepted); past it a search is not run nor billed and the model is told to answer.' },
  },
};
const chatRequestBody = {
  required: true,
  content: json({
    type: 'object',
    additionalProperties: true,
    description: 'The surface\'s own request. Web search: add {"type": "svc:web_search", "parameters": {...}} (alias openrouter:web_search) to tools. The gateway runs the searches (results screened for prompt injection and DLP, given to the model as untrusted content) and answers with the surface\'s search items, url_citation annotations and usage.server_tool_use {web_search_requests, web_search_results}; each search is priced at its engine\'s catalog price into cost_usd, budgets and usage records. A vendor\'s own search tool (web_search, web_search_20250305, google_search) on a route of another vendor: 400 unsupported_provider_native_tool.',
    properties: {
      tools: { type: 'array', items: { oneOf: [{ type: 'object', additionalProperties: true, description: 'A function tool in the surface\'s format' }, { $ref: '#/components/schemas/WebSearchTool' }] } },
      provider_options: {
        type: 'object',
        properties: { web_search: { type: 'string', enum: ['auto', 'native', 'svc', 'merge'], description: 'svc (= merge; default with svc:web_search): the gateway\'s engines. native: the route vendor\'s own search, sent upstream as its server tool (OpenAI web_search on the Responses API, Anthropic web_search_20250305, Gemini google_search) with its citations normalised to url_citation annotations and server_tool_use; 400 web_search_requires_provider where the vendor has none, 400 invalid_server_tool_parameters with function tools on Gemini. auto (default with a vendor\'s own tool): native where every route\'s vendor has one, else svc. Anything else: 400 invalid_web_search_mode.' } },
      },
    },
  }),
};
const schemas = gatewayDocument.components.schemas as Record<string, unknown>;
schemas.WebSearchTool = { type: 'object', required: ['type'], properties: { type: { type: 'string', enum: ['svc:web_search', 'openrouter:web_search'] }, parameters: webSearchParameters } };
for (const path of ['/v1/responses', '/v1/chat/completions', '/v1/openai/chat/completions', '/v1/openai/responses', '/v1/messages', '/v1/anthropic/v1/messages']) {
  (gatewayDocument.paths as unknown as Record<string, { post: { requestBody: unknown } }>)[path]!.post.requestBody = chatRequestBody;
}

/**
 * Media (issue 27 §2): images and audio at {gateway_url}/v1 and under /v1/openai (and /v1/openai/v1),
 * so the OpenAI SDK's images and audio methods work with either base URL (README "Media").
 */
const mediaErrors = {
  '400': { description: 'invalid_request_error: model_required, invalid_model_format, unsupported_endpoint_for_model (not a model of this endpoint), alias_not_supported (an @alias/ model: media takes one concrete model), input_too_long (speech input past the route\'s character limit, OpenAI 4,096), unsupported_params (a response_format the route cannot make), empty_input, invalid_request_body, vendor_unavailable, model_unavailable; a vendor\'s own 400 has source provider', content: json(modelError) },
  '401': { description: 'Missing, invalid, disabled or management key', content: json(modelError) },
  '402': { description: 'budget_exceeded / api_key_limit_exceeded, decided before any vendor call', content: json(modelError) },
  '403': { description: 'model_not_allowed or blocked_by_policy', content: json(modelError) },
  '413': { description: 'payload_too_large: the upload is over 20 MB (images) or 25 MB (audio); decided while the upload streams in (and from Content-Length before reading), param "file"', content: json(modelError) },
  '429': { description: 'Customer key rate limit, vendor rate_limit_error', content: json(modelError) },
  '502': { description: 'provider_error when every candidate route failed (the last failure)', content: json(modelError) },
};
const mediaFields = {
  model: { type: 'string', description: 'provider/model (or a bare name one provider has), e.g. openai/gpt-image-1, openai/tts-1, openai/whisper-1, google/gemini-2.5-flash-image, google/gemini-2.5-flash-preview-tts' },
  vendor: { type: 'string', description: 'Pin the vendor' },
  routing_policy_id: { type: 'string', format: 'uuid', description: 'A routing policy of this endpoint\'s models (also X-Svc-Routing-Policy-Id); without model, the key\'s bound policy or a default of such models routes the request' },
  customer: { type: 'string', format: 'uuid' },
  project_id: { type: 'string', format: 'uuid' },
  tags: { description: 'Tag pairs, as on chat' },
};
const mediaPath = (summary: string, body: unknown, ok: unknown) => ({ post: { tags: ['Media'], summary, security: [{ gateway_key: [] }], requestBody: { required: true, content: body }, responses: { '200': ok, ...mediaErrors } } });
const imagesOk = { description: '{created, data: [{b64_json | url, revised_prompt?}], model, vendor, cost_usd, usage? (the vendor\'s tokens, gpt-image), text? (Gemini)}; X-Svc-Billed-Images', content: json(anyObject) };
const mediaDocs: Record<string, unknown> = {};
for (const base of ['/v1', '/v1/openai', '/v1/openai/v1']) {
  mediaDocs[`${base}/images/generations`] = mediaPath(
    'Generate images (billed per image)',
    json({ type: 'object', required: ['prompt'], properties: { ...mediaFields, prompt: { type: 'string' }, n: { type: 'integer', minimum: 1, maximum: 10, default: 1 }, size: { type: 'string' }, quality: { type: 'string' }, response_format: { type: 'string', enum: ['url', 'b64_json'] }, priority_order: { type: 'array', maxItems: 10, items: { type: 'object', required: ['model'], properties: { model: { type: 'string' }, vendors: { type: 'array', items: { type: 'string' } } } }, description: 'Models to fail over to, in order (the first is model)' } }, additionalProperties: true }),
    imagesOk,
  );
  mediaDocs[`${base}/images/edits`] = mediaPath(
    'Edit images (multipart; billed per image)',
    { 'multipart/form-data': { schema: { type: 'object', required: ['image', 'prompt'], properties: { ...mediaFields, image: { type: 'string', format: 'binary', description: 'One or more (image or image[]); 20 MB in all' }, mask: { type: 'string', format: 'binary' }, prompt: { type: 'string' }, n: { type: 'integer' }, size: { type: 'string' } } } } },
    imagesOk,
  );
  mediaDocs[`${base}/audio/speech`] = mediaPath(
    'Text to speech: raw audio bytes (billed per input character)',
    json({ type: 'object', required: ['input', 'voice'], properties: { ...mediaFields, input: { type: 'string', description: 'Over the route\'s character limit (OpenAI 4,096): 400 input_too_long' }, voice: { description: 'alloy, nova… (mapped to a native voice on Gemini), or {id}' }, response_format: { type: 'string', enum: ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'], description: 'Default mp3 (wav on Gemini, which makes wav and pcm only)' }, speed: { type: 'number', minimum: 0.25, maximum: 4 }, instructions: { type: 'string' } } }),
    { description: 'The audio file; Content-Type names its format; X-Svc-Billed-Characters: the characters billed', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
  );
  mediaDocs[`${base}/audio/transcriptions`] = mediaPath(
    'Speech to text (multipart; billed per second of audio)',
    { 'multipart/form-data': { schema: { type: 'object', required: ['file', 'model'], properties: { ...mediaFields, file: { type: 'string', format: 'binary', description: 'Up to 25 MB' }, language: { type: 'string' }, prompt: { type: 'string' }, response_format: { type: 'string', enum: ['json', 'text', 'srt', 'verbose_json', 'vtt'], default: 'json' }, temperature: { type: 'number' } } } } },
    { description: 'json/verbose_json: {text, vendor, language, duration, usage: {type: duration, seconds}, cost_usd, …the vendor\'s fields}; text, srt, vtt as text. X-Svc-Billed-Seconds', content: { ...json(anyObject), 'text/plain': { schema: { type: 'string' } } } },
  );
}
Object.assign(gatewayDocument.paths, mediaDocs);

/** Fusion (issue 27 §4) on the native /v1/responses (README "Fusion"). */
const nativeResponses = (gatewayDocument.paths as unknown as Record<string, { post: { summary: string; responses: Record<string, unknown> } }>)['/v1/responses']!.post;
nativeResponses.summary +=
  '. With model "fusion" and fusion: {analysis_models: [1-8 models], synthesis_model} the panel answers in parallel and the judge writes the answer; the body adds fusion {analysis_models, synthesis_model, responses, failed_models, calls, judge} and usage is the sum of every call. Codes: 400 fusion_stream_unsupported (stream: true), 400 invalid_fusion_request, 502/403 fusion_panel_failed (no usable panel answer)';

/**
 * What the console's charts and routing editor read (issue 26 §2): usage per UTC day stacked by a
 * dimension with the server's totals (src/usage/usage-daily.ts), and a routing policy's dry run
 * (src/routing/dry-run.ts).
 */
const usageFigures = { requests: { type: 'integer', minimum: 0 }, failed_requests: { type: 'integer', minimum: 0 }, input_tokens: { type: 'integer', minimum: 0 }, output_tokens: { type: 'integer', minimum: 0 }, cost_usd: usdAmount };
const dimension = { type: 'string', enum: ['key', 'model', 'project', 'customer', 'tag'] };
Object.assign(schemas, {
  UsageFigures: closed(usageFigures),
  UsageDailyGroup: closed({
    id: { type: 'string', description: 'The series id: the value, "none" (requests without one: no project, customer or tag) or "other" (every group past limit)' },
    value: { ...nullableStr, description: 'Key hash, model, project id, customer id or key=value tag; null for none and other' },
    label: { type: 'string', description: "What a person reads: the key's name and label, the project's or customer's name, else the value" },
    ...usageFigures,
  }),
  UsageDailyDay: closed({ date: { type: 'string', format: 'date' }, ...usageFigures, groups: { type: 'array', items: closed({ id: str, ...usageFigures }), description: "This day's figures per group, in the groups' order; groups with nothing that day are left out" } }),
  UsageDaily: closed({
    object: { type: 'string', enum: ['usage.daily'] },
    time_zone: { type: 'string', enum: ['UTC'], description: 'Days are UTC days' },
    from: { type: 'string', format: 'date' },
    to: { type: 'string', format: 'date' },
    group_by: dimension,
    group_count: { type: 'integer', minimum: 0, description: 'Distinct values in the range before the top `limit` were kept' },
    groups: { type: 'array', items: ref('UsageDailyGroup'), description: 'Largest spend first, "other" last' },
    days: { type: 'array', items: ref('UsageDailyDay'), description: 'Every day from `from` to `to`, zeros included' },
    totals: { ...ref('UsageFigures'), description: 'The range: each request once (grouped by tag, a request with two tags is in two groups but once here)' },
  }),
  DryRunRequest: input(
    {
      surface: { type: 'string', enum: ['native', 'openai_chat', 'openai_responses', 'anthropic'], default: 'native', description: 'How `request` is read: POST /v1/responses, /v1/chat/completions, /v1/openai/responses or /v1/messages' },
      request: { type: 'object', additionalProperties: true, description: 'The model request body as that surface takes it; its model is set aside (the policy routes), its tags, customer, project_id, service_tier, tools, input kinds, stream and max tokens count' },
    },
    ['request'],
  ),
  DryRunRoute: closed({
    position: { type: 'integer', minimum: 1, description: 'Order of trial: the first route answers unless it fails over' },
    model: str,
    vendor: str,
    vendor_model: str,
    service_tier: str,
    target_index: { type: 'integer', description: "The policy target it came from (0-based)" },
    estimated_cost_usd: { type: 'number', nullable: true, description: 'For the request\'s estimated input and expected output tokens; null when self-hosted' },
    price: { type: 'object', nullable: true, additionalProperties: false, required: ['input_per_million', 'output_per_million'], properties: { input_per_million: usdAmount, output_per_million: usdAmount } },
    breaker: { type: 'string', enum: ['closed', 'open', 'probe'], description: 'probe: the cooldown is over and the next request probes the route' },
    latency_ms: { type: 'integer', nullable: true, description: 'Measured moving average; null before a success' },
    zero_data_retention: { type: 'boolean' },
    self_hosted: { type: 'boolean' },
    reason: { type: 'string', description: 'Why the route is at this position under the strategy' },
  }),
  DryRun: closed(
    {
      object: { type: 'string', enum: ['routing.dry_run'] },
      outcome: { type: 'string', enum: ['routed', 'refused'] },
      policy: closed({ id: uuid, name: str, strategy: { type: 'string', enum: ['priority', 'weighted', 'lowest_cost', 'lowest_latency'] }, model: { ...nullableStr, description: '@alias/<slug>' } }),
      request: closed({
        surface: str,
        estimated_input_tokens: { type: 'integer', minimum: 0 },
        expected_output_tokens: { type: 'integer', minimum: 0 },
        needs: closed({ tools: { type: 'boolean' }, structured_outputs: { type: 'boolean' }, input: strings, stream: { type: 'boolean' } }),
        service_tier: str,
        customer: nullableUuid,
        project_id: nullableUuid,
      }),
      vendor_called: { type: 'boolean', enum: [false] },
      resolved_by: str,
      strategy: str,
      failover: { type: 'boolean' },
      refusal: closed({ status: { type: 'integer' }, code: nullableStr, message: str }),
      routes: { type: 'array', items: ref('DryRunRoute') },
      skipped_unhealthy: { type: 'array', items: closed({ model: str, vendor: str, reason: str }), description: 'Routes whose circuit breaker is open: a request skips them' },
      excluded: { type: 'array', items: closed({ model: str, vendor: nullableStr, reason: str }), description: "Routes of the policy's targets the request cannot take, and why" },
      notes: strings,
    },
    ['strategy', 'failover', 'refusal'],
  ),
});
Object.assign(gatewayDocument.paths, {
  '/v1/usage/daily': mgmt(
    'view_billing',
    'Spend and requests per UTC day over from..to (default the last 30 days, at most 366), stacked by group_by; the top `limit` groups by spend are named, the rest summed as "other"; every total (per day, per group, the range) computed by the server',
    'get',
    '200',
    [
      { name: 'from', in: 'query', schema: { type: 'string', format: 'date' }, description: 'First UTC day, YYYY-MM-DD (400 invalid_date otherwise)' },
      { name: 'to', in: 'query', schema: { type: 'string', format: 'date' }, description: 'Last UTC day, included (default today)' },
      { name: 'group_by', in: 'query', schema: { ...dimension, default: 'model' } },
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 25, default: 8 }, description: 'Groups named before the rest become "other"' },
    ],
    false,
    ref('UsageDaily'),
  ),
  '/v1/routing-policies/{policy_id}/dry-run': mgmt(
    'view_routing',
    'Which routes a request would take under this policy, in order, and why (the real resolution, breakers read without claiming a probe); the routes left out and why; a request the policy cannot serve answers outcome "refused" with the error a real request would get. No vendor is called, nothing is billed or recorded (view_routing or manage_routing, or an organization gateway key)',
    'post',
    '200',
    [p('policy_id')],
    ref('DryRunRequest'),
    ref('DryRun'),
  ),
});
