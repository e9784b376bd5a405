import { startTelemetry } from '@patchbay/telemetry';

// Imported first by main.ts and worker.ts: instrumentation must patch http, express, pg and ioredis before they load.
export const telemetry = startTelemetry({ serviceName: 'unified-data' });
