import { ProxyTracerProvider, trace } from '@opentelemetry/api';
import type { startTelemetry as StartTelemetry } from './start';

const OTEL_VARIABLES = ['OTEL_TRACES_EXPORTER', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_SDK_DISABLED'];

/** A fresh copy of the module for each case: one handle per process is the rule being tested around. */
function freshStartTelemetry(): typeof StartTelemetry {
  let fn: typeof StartTelemetry | undefined;
  jest.isolateModules(() => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    fn = (require('./start') as typeof import('./start')).startTelemetry;
  });
  if (!fn) throw new Error('start module did not load');
  return fn;
}

function registeredProvider(): unknown {
  const provider = trace.getTracerProvider();
  return provider instanceof ProxyTracerProvider ? provider.getDelegate() : provider;
}

describe('startTelemetry', () => {
  const saved: Record<string, string | undefined> = {};
  beforeEach(() => {
    for (const name of OTEL_VARIABLES) {
      saved[name] = process.env[name];
      delete process.env[name];
    }
  });
  afterEach(() => {
    for (const name of OTEL_VARIABLES) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  test('is disabled by default: without OTEL_* variables it returns enabled false and registers nothing', async () => {
    const before = registeredProvider();
    const telemetry = freshStartTelemetry()({ serviceName: 'test-service' });
    expect(telemetry.enabled).toBe(false);
    expect(registeredProvider()).toBe(before);
    expect(trace.getActiveSpan()).toBeUndefined();
    await expect(telemetry.shutdown()).resolves.toBeUndefined();
  });

  test('OTEL_SDK_DISABLED=true disables even when an exporter and test processors are given', async () => {
    process.env.OTEL_SDK_DISABLED = 'true';
    process.env.OTEL_TRACES_EXPORTER = 'console';
    const before = registeredProvider();
    const telemetry = freshStartTelemetry()({ serviceName: 'test-service', spanProcessors: [] });
    expect(telemetry.enabled).toBe(false);
    expect(registeredProvider()).toBe(before);
    await telemetry.shutdown();
  });

  test('OTEL_TRACES_EXPORTER=none keeps it disabled', async () => {
    process.env.OTEL_TRACES_EXPORTER = 'none';
    const telemetry = freshStartTelemetry()({ serviceName: 'test-service' });
    expect(telemetry.enabled).toBe(false);
    await telemetry.shutdown();
  });

  test('a second call returns the first handle', () => {
    const start = freshStartTelemetry();
    const first = start({ serviceName: 'test-service' });
    expect(start({ serviceName: 'other-name' })).toBe(first);
  });
});
