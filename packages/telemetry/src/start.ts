import type { tracing } from '@opentelemetry/sdk-node';
import { sdkDisabled, tracingRequested } from './env';

export interface TelemetryOptions {
  /** `service.name` on every span; OTEL_SERVICE_NAME wins when set. */
  serviceName: string;
  /** `service.version`; OTEL_RESOURCE_ATTRIBUTES wins when it sets one. */
  serviceVersion?: string;
  /**
   * Test seam: spans go to these processors instead of the exporter chosen by OTEL_TRACES_EXPORTER.
   * Passing them turns tracing on without OTEL_* variables (OTEL_SDK_DISABLED=true still wins).
   */
  spanProcessors?: tracing.SpanProcessor[];
}

export interface Telemetry {
  /** Whether an SDK was started (tracing was asked for by OTEL_* variables or by a test). */
  readonly enabled: boolean;
  /** Flushes pending spans and stops the SDK. Safe to call more than once. */
  shutdown(): Promise<void>;
}

const DISABLED: Telemetry = { enabled: false, shutdown: () => Promise.resolve() };

let current: Telemetry | undefined;

/**
 * Starts OpenTelemetry tracing when the OTEL_* variables ask for it, and does nothing otherwise.
 *
 * Must run before express, http, pg or ioredis are first required: the instrumentations patch a
 * module when it is loaded, and a module loaded earlier stays unpatched.
 *
 * One SDK per process: later calls (a service's main after the `register` preload) return the
 * first call's handle, so the main can still reach `shutdown`.
 */
export function startTelemetry(options: TelemetryOptions): Telemetry {
  if (current) return current;
  // The SDK reads process.env itself; the on/off decision reads the same variables.
  const env = process.env;
  const asked = options.spanProcessors !== undefined || tracingRequested(env);
  if (!asked || sdkDisabled(env)) {
    current = DISABLED;
    return current;
  }
  // Required here rather than imported at the top so that a disabled service never loads the SDK.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { createSdk } = require('./sdk') as typeof import('./sdk');
  const sdk = createSdk({ ...options, env });
  sdk.start();
  let stopping: Promise<void> | undefined;
  current = {
    enabled: true,
    shutdown: () => {
      stopping ??= sdk.shutdown();
      return stopping;
    },
  };
  return current;
}
