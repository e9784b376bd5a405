import { startTelemetry } from '@patchbay/telemetry';

// Imported first by main.ts: instrumentation must patch http, express and ioredis before they load.
export const telemetry = startTelemetry({ serviceName: 'model-gateway' });
