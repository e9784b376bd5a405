export { tracingRequested } from './env';
export { startTelemetry } from './start';
export type { Telemetry, TelemetryOptions } from './start';
export { isSpanError, markSpanError, withSpan } from './with-span';
