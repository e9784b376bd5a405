import { commonEnv, loadEnv } from '@patchbay/service-kit';
import { z } from 'zod';

export const SERVICE_NAME = 'console';

/** Where the edge router mounts the console; a request may also arrive under the public base path. */
export const MOUNT_PATH = '/console/';

const basePath = z
  .string()
  .regex(/^\/(?:[A-Za-z0-9._~-]+\/)*$/, 'must be an absolute path that starts and ends with "/", such as /console/ or /tools/patchbay/console/');

const schema = z.object({
  NODE_ENV: commonEnv.NODE_ENV,
  LOG_LEVEL: commonEnv.LOG_LEVEL,
  PORT: z.coerce.number().int().min(0).max(65535).default(8086),
  HOST: z.string().min(1).default('0.0.0.0'),
  /** Public base URL as browsers see the edge router; its path (if any) prefixes the console and the APIs. */
  PATCHBAY_PUBLIC_URL: commonEnv.PATCHBAY_PUBLIC_URL,
  /**
   * The console's path as browsers see it, for a reverse proxy that serves Patchbay on a sub-path.
   * Default: the path of PATCHBAY_PUBLIC_URL followed by console/ (so /console/ without it).
   */
  PATCHBAY_CONSOLE_BASE_PATH: basePath.optional(),
  /** The path under which browsers reach the public APIs (/api/v1/..., /v1/...). Default: the path of PATCHBAY_PUBLIC_URL, else /. */
  PATCHBAY_CONSOLE_API_BASE_PATH: basePath.optional(),
});

export interface ConsoleConfig {
  port: number;
  host: string;
  logLevel: z.infer<typeof schema>['LOG_LEVEL'];
  /** The console's public path, always ending in "/". */
  basePath: string;
  /** The APIs' public path prefix, always ending in "/". */
  apiBasePath: string;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ConsoleConfig {
  const parsed = loadEnv(SERVICE_NAME, schema, env);
  const publicPath = parsed.PATCHBAY_PUBLIC_URL ? new URL(parsed.PATCHBAY_PUBLIC_URL).pathname.replace(/\/*$/, '/') : '/';
  return {
    port: parsed.PORT,
    host: parsed.HOST,
    logLevel: parsed.LOG_LEVEL,
    basePath: parsed.PATCHBAY_CONSOLE_BASE_PATH ?? `${publicPath}console/`,
    apiBasePath: parsed.PATCHBAY_CONSOLE_API_BASE_PATH ?? publicPath,
  };
}
