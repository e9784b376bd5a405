import { telemetry } from './telemetry';
import { KeyVerifier, httpKeyLoader } from '@patchbay/auth';
import { BUILTIN_CONNECTORS, baseUrlOverridesFromEnv } from '@patchbay/connector-catalog';
import { Meter } from '@patchbay/metering';
import { createGuardedFetch } from '@patchbay/outbound';
import { createLogger, createRedis, runService, startHttpService } from '@patchbay/service-kit';
import { createApp } from './app';
import { SERVICE_NAME, loadConfig } from './config';
import { ToolExecutor } from './domain/execute';
import { RegistryClient } from './domain/registry-client';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(SERVICE_NAME, config.LOG_LEVEL);
  const redis = createRedis(config.REDIS_URL, { name: `${SERVICE_NAME}:commands` });
  const subscriber = createRedis(config.REDIS_URL, { name: `${SERVICE_NAME}:key-invalidation` });
  const verifier = new KeyVerifier({ loader: httpKeyLoader({ baseUrl: config.ACCESS_KEYS_URL, serviceToken: config.PATCHBAY_SERVICE_TOKEN }) });
  await verifier.subscribe(subscriber);
  const registry = new RegistryClient({ baseUrl: config.CONNECTOR_REGISTRY_URL, serviceToken: config.PATCHBAY_SERVICE_TOKEN, cacheTtlMs: config.PACK_CACHE_TTL_MS });
  const executor = new ToolExecutor({
    registry,
    fetch: createGuardedFetch({ allowPrivateNetwork: config.PATCHBAY_ALLOW_PRIVATE_NETWORK }, { requireHttps: !config.PATCHBAY_ALLOW_PRIVATE_NETWORK }),
    limits: { timeoutMs: config.TOOL_CALL_TIMEOUT_MS, maxRows: config.TOOL_MAX_ROWS, maxResponseBytes: config.TOOL_MAX_RESPONSE_BYTES },
    baseUrlOverrides: baseUrlOverridesFromEnv(BUILTIN_CONNECTORS.map((c) => c.slug)),
  });
  const app = createApp({ logger, verifier, redis, registry, executor, meter: new Meter(redis) });
  await startHttpService({
    name: SERVICE_NAME,
    app,
    port: config.PORT,
    logger,
    // Hooks run in reverse: telemetry flushes last.
    onShutdown: [async () => telemetry.shutdown(), async () => executor.close(), async () => { redis.disconnect(); }, async () => verifier.close()],
  });
}

runService(SERVICE_NAME, main);
