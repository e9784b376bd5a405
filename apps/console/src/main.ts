import path from 'node:path';
import { createLogger, runService, startHttpService } from '@patchbay/service-kit';
import { SERVICE_NAME, loadConfig } from './config';
import { createConsoleHandler } from './server';
import { createStaticSite } from './static-site';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(SERVICE_NAME, config.logLevel);
  const site = createStaticSite(path.join(__dirname, 'web'), config);
  await startHttpService({ name: SERVICE_NAME, app: createConsoleHandler(site), port: config.port, host: config.host, logger });
  logger.info({ base_path: config.basePath, api_base_path: config.apiBasePath }, 'serving the console');
}

runService(SERVICE_NAME, main);
