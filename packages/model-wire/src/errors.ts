import type { ErrorType, GatewayErrorLike, NormalizedUsage, ValidationDetail, VendorErrorKind } from './types';

/**
 * A client's request the gateway refuses before calling any vendor: a 400 with a code of the spec's
 * table, a 413 for inline media, or (native surface) a 422 whose body is the `detail` array.
 */
export class WireError extends Error implements GatewayErrorLike {
  readonly status: number;
  readonly type: ErrorType;
  readonly code: string | null;
  readonly param: string | null;
  readonly source = 'gateway' as const;
  readonly provider = null;
  readonly detail: ValidationDetail[] | undefined;

  constructor(status: number, code: string | null, message: string, options: { param?: string | null; type?: ErrorType; detail?: ValidationDetail[] } = {}) {
    super(message);
    this.name = 'WireError';
    this.status = status;
    this.code = code;
    this.param = options.param ?? null;
    this.type = options.type ?? 'invalid_request_error';
    this.detail = options.detail;
  }

  /** A 400 invalid_request_error with a code of the spec's table. */
  static invalid(code: string, message: string, param?: string | null): WireError {
    return new WireError(400, code, message, { param });
  }

  /** A native-surface schema failure: 422 with a `detail` array. */
  static schema(detail: ValidationDetail[]): WireError {
    const first = detail[0];
    const message = first ? `${first.loc.join('.')}: ${first.msg}` : 'The request body does not match the schema.';
    return new WireError(422, null, message, { detail });
  }
}

/** The envelope types of vendor failures as the client sees them (source provider). */
const TYPE_BY_KIND: Record<VendorErrorKind, ErrorType> = {
  rate_limit: 'rate_limit_error',
  overloaded: 'provider_error',
  server: 'provider_error',
  timeout: 'provider_error',
  network: 'provider_error',
  billing: 'provider_error',
  not_found: 'provider_error',
  auth: 'provider_error',
  content_filter: 'provider_error',
  context_length: 'invalid_request_error',
  invalid_request: 'invalid_request_error',
  stream_cut: 'provider_error',
  stall: 'provider_error',
  malformed: 'provider_error',
  output_budget_exhausted: 'provider_error',
  empty_response: 'provider_error',
};

/** The status the client gets for each kind when the vendor's own status is not the right one to pass on. */
const STATUS_BY_KIND: Record<VendorErrorKind, number> = {
  rate_limit: 429,
  overloaded: 503,
  server: 502,
  timeout: 504,
  network: 502,
  billing: 502,
  not_found: 502,
  auth: 502,
  content_filter: 400,
  context_length: 400,
  invalid_request: 400,
  stream_cut: 502,
  stall: 504,
  malformed: 502,
  output_budget_exhausted: 502,
  empty_response: 502,
};

/** The error code the client sees for each kind. */
const CODE_BY_KIND: Record<VendorErrorKind, string> = {
  rate_limit: 'provider_rate_limited',
  overloaded: 'provider_overloaded',
  server: 'provider_error',
  timeout: 'provider_timeout',
  network: 'provider_unreachable',
  billing: 'provider_billing_error',
  not_found: 'provider_model_not_found',
  auth: 'provider_authentication_failed',
  content_filter: 'content_filter',
  context_length: 'context_length_exceeded',
  invalid_request: 'provider_invalid_request',
  stream_cut: 'provider_stream_cut',
  stall: 'provider_stream_stalled',
  malformed: 'provider_malformed_response',
  output_budget_exhausted: 'output_budget_exhausted',
  empty_response: 'provider_empty_response',
};

export interface VendorErrorInit {
  kind: VendorErrorKind;
  message: string;
  vendor: string;
  /** The gateway model id (`openai/gpt-4o`); its author is the envelope's `provider`. */
  model?: string;
  /** The vendor's HTTP status, when it answered with one. */
  vendorStatus?: number | null;
  retryAfterSeconds?: number | null;
  /** The vendor's error body (parsed JSON, or text), for logs; never shown to the client as is. */
  vendorBody?: unknown;
  /** The vendor's own error type/code (`insufficient_quota`, `overloaded_error`, `RESOURCE_EXHAUSTED`). */
  vendorCode?: string | null;
  param?: string | null;
  /** What the attempt consumed, when known (a stream cut after some tokens; a 200 refused). */
  usage?: NormalizedUsage | null;
  /** Whether any token had reached the caller of streamVendor before the failure. */
  afterFirstToken?: boolean;
  cause?: unknown;
}

/** A vendor call that gave no usable answer. Issue 10's failover decides on `kind` alone. */
export class VendorError extends Error implements GatewayErrorLike {
  readonly kind: VendorErrorKind;
  readonly status: number;
  readonly type: ErrorType;
  readonly code: string;
  readonly param: string | null;
  readonly source = 'provider' as const;
  /** The model's author (`openai` for `openai/gpt-4o`), or the vendor when the model is unknown. */
  readonly provider: string;
  readonly vendor: string;
  /** The gateway model id the call was for, when known. */
  readonly model: string | null;
  readonly vendorStatus: number | null;
  readonly retryAfterSeconds: number | null;
  readonly vendorBody: unknown;
  readonly vendorCode: string | null;
  readonly usage: NormalizedUsage | null;
  readonly afterFirstToken: boolean;

  constructor(init: VendorErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'VendorError';
    this.kind = init.kind;
    this.vendor = init.vendor;
    this.model = init.model ?? null;
    this.provider = init.model?.includes('/') ? init.model.slice(0, init.model.indexOf('/')) : init.vendor;
    this.vendorStatus = init.vendorStatus ?? null;
    this.status = init.kind === 'server' && init.vendorStatus && init.vendorStatus >= 500 && init.vendorStatus !== 501 ? init.vendorStatus : STATUS_BY_KIND[init.kind];
    this.type = TYPE_BY_KIND[init.kind];
    this.code = CODE_BY_KIND[init.kind];
    this.param = init.param ?? null;
    this.retryAfterSeconds = init.retryAfterSeconds ?? null;
    this.vendorBody = init.vendorBody;
    this.vendorCode = init.vendorCode ?? null;
    this.usage = init.usage ?? null;
    this.afterFirstToken = init.afterFirstToken ?? false;
  }

  /** The same error, marked as happening after tokens reached the caller, with what was consumed. */
  withStreamState(afterFirstToken: boolean, usage: NormalizedUsage | null): VendorError {
    return new VendorError({ ...this.init(), afterFirstToken, usage: usage ?? this.usage });
  }

  private init(): VendorErrorInit {
    return {
      kind: this.kind,
      message: this.message,
      vendor: this.vendor,
      model: this.model ?? undefined,
      vendorStatus: this.vendorStatus,
      retryAfterSeconds: this.retryAfterSeconds,
      vendorBody: this.vendorBody,
      vendorCode: this.vendorCode,
      param: this.param,
      usage: this.usage,
      afterFirstToken: this.afterFirstToken,
      cause: this.cause,
    };
  }
}
