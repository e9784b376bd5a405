import { existsSync } from 'node:fs';
import path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
/** Local state of `pnpm start` (embedded PostgreSQL, first-run keys); PATCHBAY_DATA_DIR moves it (the end-to-end test does). */
export const DATA_DIR = process.env.PATCHBAY_DATA_DIR ? path.resolve(process.env.PATCHBAY_DATA_DIR) : path.join(REPO_ROOT, '.data');
/** Written by `pnpm start` so the admin CLI finds the same database (for example an embedded one). */
export const RUNTIME_FILE = path.join(DATA_DIR, 'runtime.json');

export interface SuiteWorker {
  /** The entry in the app's dist/ folder. */
  entry: string;
  /** Port of its /healthz. */
  port: number;
}

export interface SuiteApp {
  name: string;
  port: number;
  /** The edge router variable that points at this app. */
  edgeVariable?: string;
  /**
   * Processes of the app besides its main, started with it when their entry is built (queue
   * consumers, batch or sync workers). mcp-runtime runs its record workers inside its main here.
   */
  workers?: SuiteWorker[];
}

/**
 * Every app of the suite; the edge router comes last. Apps not built yet are skipped. Adding an app
 * is adding an entry here (see also docker-compose.yml and the Helm values, infra/README.md).
 */
export const SUITE_APPS: SuiteApp[] = [
  { name: 'access-keys-and-audit', port: 8081, edgeVariable: 'ACCESS_KEYS_URL' },
  { name: 'connector-registry', port: 8082, edgeVariable: 'CONNECTOR_REGISTRY_URL' },
  { name: 'mcp-runtime', port: 8083, edgeVariable: 'MCP_RUNTIME_URL' },
  { name: 'model-gateway', port: 8084, edgeVariable: 'MODEL_GATEWAY_URL', workers: [{ entry: 'worker.js', port: 8094 }] },
  { name: 'unified-data', port: 8085, edgeVariable: 'UNIFIED_DATA_URL', workers: [{ entry: 'worker.js', port: 8095 }] },
  { name: 'console', port: 8086, edgeVariable: 'CONSOLE_URL' },
  { name: 'edge-router', port: 8080 },
];

/** PATCHBAY_PORT_OFFSET shifts every port, so a second suite (a test run) can run beside yours. */
export function portOf(app: SuiteApp): number {
  const offset = Number(process.env.PATCHBAY_PORT_OFFSET ?? 0);
  if (app.name === 'edge-router' && process.env.PORT) return Number(process.env.PORT);
  return app.port + (Number.isInteger(offset) ? offset : 0);
}

export function appEntry(app: SuiteApp, entry = 'main.js'): string {
  return path.join(REPO_ROOT, 'apps', app.name, 'dist', entry);
}

/** The app's workers whose entry is built, each with its port shifted like the apps'. */
export function installedWorkers(app: SuiteApp): SuiteWorker[] {
  return (app.workers ?? []).filter((w) => existsSync(appEntry(app, w.entry))).map((w) => ({ ...w, port: portOf({ name: `${app.name}-worker`, port: w.port }) }));
}

export function installedApps(): SuiteApp[] {
  return SUITE_APPS.filter((app) => existsSync(appEntry(app)));
}
