import { booleanFromEnv, commonEnv, loadEnv } from '@patchbay/service-kit';
import { z } from 'zod';
import type { ServiceName } from './routes';

export const SERVICE_NAME = 'edge-router';

/** An unset or empty variable both mean "this service is not deployed here". */
const optionalUpstreamUrl = z.preprocess((value) => (value === '' ? undefined : value), upstreamUrl().optional());

function upstreamUrl() {
  return z.string().superRefine((value, ctx) => {
    const url = tryUrl(value);
    if (url === undefined) ctx.addIssue({ code: 'custom', message: 'must be a URL such as http://127.0.0.1:8083' });
    else if (url.protocol !== 'http:') ctx.addIssue({ code: 'custom', message: 'must be an http:// URL (services are reached over plain HTTP inside the installation)' });
    else if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
      ctx.addIssue({ code: 'custom', message: 'must not carry a query, fragment or credentials' });
    }
  });
}

function tryUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

const schema = z.object({
  NODE_ENV: commonEnv.NODE_ENV,
  LOG_LEVEL: commonEnv.LOG_LEVEL,
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /** Interface to listen on; all of them by default, since this is the public port. */
  HOST: z.string().min(1).default('0.0.0.0'),
  ACCESS_KEYS_URL: upstreamUrl().default('http://127.0.0.1:8081'),
  CONNECTOR_REGISTRY_URL: optionalUpstreamUrl,
  MCP_RUNTIME_URL: optionalUpstreamUrl,
  MODEL_GATEWAY_URL: optionalUpstreamUrl,
  UNIFIED_DATA_URL: optionalUpstreamUrl,
  /** The web console (apps/console), served under /console/. */
  CONSOLE_URL: optionalUpstreamUrl,
  /**
   * Set to true only when a load balancer in front of the edge overwrites X-Forwarded-* itself;
   * otherwise any client could choose the host and scheme of the links the services build.
   */
  EDGE_TRUST_FORWARDED: booleanFromEnv.default(false),
  /** How long an upstream may take to send its response headers. Tool calls can be slow, so this is generous. */
  EDGE_UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(1).default(60_000),
  /** How long /healthz and /openapi.json wait for each service. */
  EDGE_PROBE_TIMEOUT_MS: z.coerce.number().int().min(1).default(2_000),
  /**
   * Largest request body forwarded to the model gateway (inline media are refused by the gateway past
   * 20 / 25 MB; this bounds what the edge lets through at all). Other services keep their own limits.
   */
  EDGE_GATEWAY_BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(64 * 1024 * 1024),
  /** How long the merged OpenAPI document is reused before the services are asked again. */
  EDGE_OPENAPI_CACHE_MS: z.coerce.number().int().min(0).default(5_000),
});

export type EdgeEnv = z.infer<typeof schema>;

export interface EdgeConfig {
  port: number;
  host: string;
  logLevel: EdgeEnv['LOG_LEVEL'];
  /** Base URL of each service; undefined when it is not deployed on this installation. */
  upstreams: Record<ServiceName, URL | undefined>;
  trustForwarded: boolean;
  upstreamTimeoutMs: number;
  probeTimeoutMs: number;
  openApiCacheMs: number;
  gatewayBodyLimitBytes: number;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): EdgeConfig {
  const parsed = loadEnv(SERVICE_NAME, schema, env);
  const url = (value: string | undefined) => (value === undefined ? undefined : new URL(value));
  return {
    port: parsed.PORT,
    host: parsed.HOST,
    logLevel: parsed.LOG_LEVEL,
    upstreams: {
      'access-keys-and-audit': url(parsed.ACCESS_KEYS_URL),
      'connector-registry': url(parsed.CONNECTOR_REGISTRY_URL),
      'mcp-runtime': url(parsed.MCP_RUNTIME_URL),
      'model-gateway': url(parsed.MODEL_GATEWAY_URL),
      'unified-data': url(parsed.UNIFIED_DATA_URL),
      console: url(parsed.CONSOLE_URL),
    },
    trustForwarded: parsed.EDGE_TRUST_FORWARDED,
    upstreamTimeoutMs: parsed.EDGE_UPSTREAM_TIMEOUT_MS,
    probeTimeoutMs: parsed.EDGE_PROBE_TIMEOUT_MS,
    openApiCacheMs: parsed.EDGE_OPENAPI_CACHE_MS,
    gatewayBodyLimitBytes: parsed.EDGE_GATEWAY_BODY_LIMIT_BYTES,
  };
}
