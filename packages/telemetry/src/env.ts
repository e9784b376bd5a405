/**
 * Whether the standard OTEL_* variables ask for traces. Tracing is off by default so a service
 * started without any of them loads no SDK and pays nothing per request.
 *
 * This only decides on/off; which exporter, protocol, sampler and endpoint are used is left to the
 * SDK's own reading of the same variables.
 */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if (sdkDisabled(env)) return false;
  const exporters = stringList(env.OTEL_TRACES_EXPORTER);
  // The SDK sets up no span processor when the list starts with "none" (and falls back to otlp
  // when "none" comes with others), so follow the same reading.
  if (exporters[0] === 'none') return false;
  if (exporters.length > 0) return true;
  return nonBlank(env.OTEL_EXPORTER_OTLP_ENDPOINT) || nonBlank(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/** OTEL_SDK_DISABLED=true turns everything off, whatever else is set (read as the SDK reads it). */
export function sdkDisabled(env: NodeJS.ProcessEnv): boolean {
  return env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true';
}

/** OTEL_*_EXPORTER values are comma-separated lists; blanks mean unset. */
function stringList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '' && v !== 'null');
}

export function nonBlank(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== '';
}
