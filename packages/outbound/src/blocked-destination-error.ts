export type BlockedReason = 'scheme' | 'credentials_in_url' | 'private_address' | 'unresolvable' | 'invalid_url';

/**
 * A user-supplied destination Patchbay refuses to call. The message is safe to show to the user:
 * it names the host they gave but never the addresses it resolved to, so the guard does not
 * become a way to map an internal network.
 */
export class BlockedDestinationError extends Error {
  readonly reason: BlockedReason;
  readonly host?: string;
  /** Lets code that only looks at `err.cause.code` (as Node's network errors have) recognise it. */
  readonly code = 'ERR_BLOCKED_DESTINATION';

  constructor(reason: BlockedReason, message: string, host?: string) {
    super(message);
    this.name = 'BlockedDestinationError';
    this.reason = reason;
    if (host !== undefined) this.host = host;
  }
}
