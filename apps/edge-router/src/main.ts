import { telemetry } from './telemetry';
import { createLogger, runService, startHttpService } from '@patchbay/service-kit';
import { SERVICE_NAME, loadConfig } from './config';
import { createEdgeServer } from './server';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(SERVICE_NAME, config.logLevel);
  const handler = createEdgeServer(config, { logger, tracing: telemetry.enabled });
  await startHttpService({
    name: SERVICE_NAME,
    app: handler,
    port: config.port,
    host: config.host,
    logger,
    onShutdown: [async () => telemetry.shutdown(), async () => handler.close()],
  });
  const deployed = Object.entries(config.upstreams).map(([name, url]) => [name, url ? url.origin + url.pathname.replace(/\/$/, '') : 'not deployed']);
  logger.info({ upstreams: Object.fromEntries(deployed), trust_forwarded: config.trustForwarded }, 'routing to services');
}

runService(SERVICE_NAME, main);
