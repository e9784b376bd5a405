import { TRACE_FIELD, injectTraceContext, linksFromCarrier, splitJobData } from './trace';

describe('trace carrier', () => {
  it('carries nothing when no OpenTelemetry SDK is registered', () => {
    expect(injectTraceContext()).toBeUndefined();
    expect(linksFromCarrier({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' })).toEqual([]);
  });

  it('ignores a missing or malformed carrier', () => {
    expect(linksFromCarrier(undefined)).toEqual([]);
    expect(linksFromCarrier('00-abc')).toEqual([]);
  });

  it('gives the handler the payload without the _trace field', () => {
    const { payload, carrier } = splitJobData({ event_id: 'e1', [TRACE_FIELD]: { traceparent: 'x' } });
    expect(payload).toEqual({ event_id: 'e1' });
    expect(carrier).toEqual({ traceparent: 'x' });
  });
});
