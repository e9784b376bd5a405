/**
 * Preload for tests that follow one request across real service processes:
 *
 *   fork('apps/mcp-runtime/dist/main.js', [], { execArgv: ['-r', require.resolve('@patchbay/telemetry/span-recorder')] })
 *
 * It starts telemetry with an in-memory exporter (no OTEL_* variables needed, nothing leaves the
 * process) before the service's main runs, so every instrumentation is in place, and answers the
 * parent's IPC message `{ type: 'patchbay:spans' }` with the finished spans as plain objects
 * (`RecordedSpan`). The service's own `startTelemetry` call gets this handle back. Never loaded by a
 * service on its own.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tracing } from '@opentelemetry/sdk-node';
import { startTelemetry } from './start';

export interface RecordedSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  links: Array<{ traceId: string; spanId: string }>;
  scope: string;
  service: string;
  attributes: Record<string, unknown>;
  status: number;
}

function serviceName(): string {
  if (process.env.OTEL_SERVICE_NAME) return process.env.OTEL_SERVICE_NAME;
  try {
    const pkg = JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')) as { name?: string };
    return (pkg.name ?? 'unknown_service').replace(/^@patchbay\//, '');
  } catch {
    return 'unknown_service';
  }
}

const exporter = new tracing.InMemorySpanExporter();
startTelemetry({ serviceName: serviceName(), spanProcessors: [new tracing.SimpleSpanProcessor(exporter)] });

function toRecorded(span: tracing.ReadableSpan): RecordedSpan {
  return {
    name: span.name,
    kind: span.kind,
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    links: span.links.map((l) => ({ traceId: l.context.traceId, spanId: l.context.spanId })),
    scope: span.instrumentationScope.name,
    service: String(span.resource.attributes['service.name']),
    attributes: { ...span.attributes },
    status: span.status.code,
  };
}

process.on('message', (message: { type?: string }) => {
  if (message?.type === 'patchbay:spans') process.send?.({ type: 'patchbay:spans', spans: exporter.getFinishedSpans().map(toRecorded) });
});
