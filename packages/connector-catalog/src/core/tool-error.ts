/**
 * Why a tool call failed, in words a model can act on. The runtime turns these into
 * `isError: true` tool results; none of them carries a credential.
 */
export type ToolErrorKind =
  | 'invalid_input'
  | 'credential_rejected'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'rate_limited'
  | 'provider_error'
  | 'timeout'
  | 'blocked_destination';

export class ToolError extends Error {
  readonly kind: ToolErrorKind;
  readonly status: number | undefined;
  /** Seconds the provider asked to wait (429 Retry-After). */
  readonly retryAfterSeconds: number | undefined;

  constructor(kind: ToolErrorKind, message: string, options: { status?: number; retryAfterSeconds?: number } = {}) {
    super(message);
    this.name = 'ToolError';
    this.kind = kind;
    this.status = options.status;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}
