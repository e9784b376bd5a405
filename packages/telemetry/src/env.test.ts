import { tracingRequested } from './env';

describe('tracingRequested', () => {
  test('tracing is off by default when no OTEL_* variable is set', () => {
    expect(tracingRequested({})).toBe(false);
  });

  test('OTEL_TRACES_EXPORTER other than none turns tracing on', () => {
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: ' console , otlp ' })).toBe(true);
  });

  test('OTEL_TRACES_EXPORTER=none keeps tracing off, even with an endpoint', () => {
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(false);
  });

  test('a blank OTEL_TRACES_EXPORTER counts as unset', () => {
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: ' ' })).toBe(false);
  });

  test('an OTLP endpoint turns tracing on (the SDK then exports with otlp)', () => {
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBe(false);
  });

  test('OTEL_SDK_DISABLED=true always disables', () => {
    expect(tracingRequested({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' })).toBe(false);
    expect(tracingRequested({ OTEL_SDK_DISABLED: 'TRUE', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(false);
    expect(tracingRequested({ OTEL_SDK_DISABLED: 'false', OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
  });
});
