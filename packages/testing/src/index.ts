export { TEST_DATABASE_URL, TEST_REDIS_URL, TEST_SERVICE_TOKEN } from './env';
export { ManualClock, waitFor } from './wait';
export { freePort, startAccessKeysService } from './access-keys-service';
export type { RunningAccessKeys, TestOrganization } from './access-keys-service';
export { startConnectorRegistryService } from './registry-service';
export { startServiceProcess } from './service-process';
export type { ServiceProcess } from './service-process';
export type { RunningRegistry } from './registry-service';
export { CHROMIUM_ARGS, CHROMIUM_PATH, chromiumAvailable } from './browser';
