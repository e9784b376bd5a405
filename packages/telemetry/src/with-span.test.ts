import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { tracing } from '@opentelemetry/sdk-node';
import { NotFoundError, ServiceUnavailableError, ValidationError } from '@patchbay/errors';
import { startTelemetry, type Telemetry } from './start';
import { withSpan } from './with-span';

// The SDK can be started once per process, so this file owns one started with an in-memory exporter.
const exporter = new tracing.InMemorySpanExporter();
let telemetry: Telemetry;

beforeAll(() => {
  telemetry = startTelemetry({ serviceName: 'with-span-test', spanProcessors: [new tracing.SimpleSpanProcessor(exporter)] });
});
afterEach(() => exporter.reset());
afterAll(async () => {
  await telemetry.shutdown();
});

function finished(name: string): tracing.ReadableSpan {
  const span = exporter.getFinishedSpans().find((s) => s.name === name);
  if (!span) throw new Error(`no finished span named ${name}`);
  return span;
}

describe('withSpan', () => {
  test('names the span Class.method and returns what the function returns', async () => {
    expect(telemetry.enabled).toBe(true);
    await expect(withSpan('AccessKeyService.revoke', async () => 'revoked')).resolves.toBe('revoked');
    const span = finished('AccessKeyService.revoke');
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.resource.attributes['service.name']).toBe('with-span-test');
  });

  test('makes the span active so work inside it becomes its child in the same trace', async () => {
    await withSpan('ToolPackService.resolve', async () => {
      await withSpan('CredentialStore.load', async () => undefined);
    });
    const parent = finished('ToolPackService.resolve');
    const child = finished('CredentialStore.load');
    expect(child.spanContext().traceId).toBe(parent.spanContext().traceId);
    expect(child.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
  });

  test('an expected client error (AppError below 500) is not recorded as a span error', async () => {
    await expect(withSpan('AccessKeyService.get', async () => { throw new NotFoundError(); })).rejects.toBeInstanceOf(NotFoundError);
    await expect(withSpan('AccessKeyService.create', () => { throw ValidationError.forField('body.name', 'Required.'); })).rejects.toBeInstanceOf(ValidationError);
    for (const name of ['AccessKeyService.get', 'AccessKeyService.create']) {
      const span = finished(name);
      expect(span.status.code).toBe(SpanStatusCode.UNSET);
      expect(span.events.filter((e) => e.name === 'exception')).toHaveLength(0);
    }
    expect(finished('AccessKeyService.get').attributes['patchbay.error_code']).toBe('not_found');
  });

  test('a server error (AppError of 500 and above) is recorded as a span error', async () => {
    await expect(withSpan('Verifier.verify', async () => { throw new ServiceUnavailableError('Key verification is unavailable.'); })).rejects.toThrow('Key verification is unavailable.');
    const span = finished('Verifier.verify');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.events.some((e) => e.name === 'exception')).toBe(true);
  });

  test('an unexpected error is recorded as a span error with its exception', async () => {
    await expect(withSpan('AuditWriter.write', async () => { throw new TypeError('boom'); })).rejects.toThrow('boom');
    const span = finished('AuditWriter.write');
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'boom' });
    const exception = span.events.find((e) => e.name === 'exception');
    expect(exception?.attributes?.['exception.type']).toBe('TypeError');
  });

  test('passes span options through, so a queue job can link to the request that enqueued it', async () => {
    const enqueuedFrom = await withSpan('AuditProducer.enqueue', async (span) => span.spanContext());
    await withSpan('AuditWorker.process', async () => undefined, { kind: SpanKind.CONSUMER, links: [{ context: enqueuedFrom }] });
    const job = finished('AuditWorker.process');
    expect(job.kind).toBe(SpanKind.CONSUMER);
    expect(job.links[0]?.context.traceId).toBe(enqueuedFrom.traceId);
    expect(job.spanContext().traceId).not.toBe(enqueuedFrom.traceId);
    expect(trace.getActiveSpan()).toBeUndefined();
  });
});
