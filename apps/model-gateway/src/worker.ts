import { telemetry } from './telemetry';
import { createLogger, createServiceApp, finishServiceApp, healthHandler, runService, startHttpService } from '@patchbay/service-kit';
import { SERVICE_NAME, loadConfig } from './config';
import { createRuntime } from './runtime';

/**
 * The usage-record consumer, the outbox relay and the batch workers, for deployments that keep them
 * off the replicas answering model requests (GATEWAY_USAGE_WORKERS=false there). It is the gateway's
 * own runtime without its HTTP endpoints: the consumer stores records and tells the same spend
 * counters about them, and each batch line runs through the same model pipeline (routing, budgets,
 * guardrails, usage records) as a request. Serves only /healthz on PORT.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(`${SERVICE_NAME}-worker`, config.LOG_LEVEL);
  const runtime = await createRuntime({ ...config, GATEWAY_USAGE_WORKERS: true, GATEWAY_BATCH_WORKERS: true }, logger);
  const app = createServiceApp({ logger, requestIdInEveryLine: false });
  app.get('/healthz', healthHandler(`${SERVICE_NAME}-worker`, runtime.healthChecks));
  finishServiceApp(app, logger);
  await startHttpService({
    name: `${SERVICE_NAME}-worker`,
    app,
    port: config.PORT,
    logger,
    onShutdown: [async () => telemetry.shutdown(), async () => runtime.close()],
  });
}

runService(`${SERVICE_NAME}-worker`, main);
