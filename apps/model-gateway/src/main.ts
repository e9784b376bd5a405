import { telemetry } from './telemetry';
import { createLogger, runService, startHttpService } from '@patchbay/service-kit';
import { SERVICE_NAME, loadConfig } from './config';
import { createRuntime } from './runtime';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(SERVICE_NAME, config.LOG_LEVEL);
  const runtime = await createRuntime(config, logger);
  await startHttpService({
    name: SERVICE_NAME,
    app: runtime.listener,
    port: config.PORT,
    logger,
    // Hooks run in reverse: telemetry flushes last.
    onShutdown: [async () => telemetry.shutdown(), async () => runtime.close()],
  });
}

runService(SERVICE_NAME, main);
