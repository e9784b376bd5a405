/**
 * The little this package logs through. A pino logger (service-kit's createLogger) fits it; it is
 * structural so the package does not tie services to one logging library.
 */
export interface QueueLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** An error's message for a log line or the outbox's last_error, bounded so one bad error cannot flood either. */
export function describeError(err: unknown, max = 500): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
