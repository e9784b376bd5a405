/** How a platform call failed, in the terms the sync outcome uses. */
export type PlatformErrorKind =
  | 'credentials_invalid'
  | 'rate_limited'
  | 'transient'
  | 'failed'
  /** A page token / cursor the platform no longer takes (Zoom's expire after 15 minutes): restart that listing. */
  | 'page_token_expired'
  /** The thing asked about is gone (an event deleted between its listing and its contacts). */
  | 'not_found'
  /** The caller's AbortSignal fired. */
  | 'aborted';

/**
 * A classified platform failure. `verifyCredentials` throws it; `runSync` turns it into its outcome.
 * The message names the platform and what happened, never a credential.
 */
export class PlatformError extends Error {
  constructor(
    readonly kind: PlatformErrorKind,
    message: string,
    /** HTTP status, when there was a response. */
    readonly status: number | null = null,
    /** With `rate_limited`: when the platform allows the next call. */
    readonly retryAt: Date | null = null,
  ) {
    super(message);
    this.name = 'PlatformError';
  }
}
