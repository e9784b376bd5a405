import type { StackFrame } from './cpu-profile';

/**
 * The stages of a tools/call in mcp-runtime, in the order a call goes through them, for reading its
 * CPU profile: a sample counts for the stage of the innermost frame of ours that names one (so
 * `JSON.parse` under `RegistryClient.credential` is the credential's time), else for the library at
 * the innermost frame that names one (socket work under undici is the HTTP client's).
 *
 * Only synchronous stacks are sampled: code that resumes after an await shows its own frames, not its
 * caller's, so library work done in a callback (undici parsing a response, ioredis reading a reply)
 * counts for the library, not for the stage that waits on it.
 */
export const STAGES = {
  http: 'HTTP server: node:http, express, service-kit middleware',
  auth: 'auth: access key check (packages/auth)',
  resolution: 'resolution: tool pack + user -> tools (RegistryClient.packTools, loadPair)',
  meter: 'rate limit + credits (packages/metering, meterToolCalls)',
  mcpServer: 'MCP endpoint: SDK Server + transport per POST (mcp-endpoint, @modelcontextprotocol/sdk)',
  arguments: 'arguments: input schema validation (connector-catalog validate, ajv)',
  credential: 'credential: registry lookup (RegistryClient.credential)',
  provider: 'provider call: catalog executor, outbound guard, MCP client',
  scan: 'scan: security scanning (packages/security-scanner, rule-set cache)',
  record: 'record: tool-call records (mcp-runtime *record*, packages/queues, bullmq)',
  database: 'database: Prisma + pg (the record workers storing records; rule loads)',
  httpClient: 'HTTP client: undici (registry and provider calls)',
  redis: 'Redis client: ioredis (meter, key invalidation)',
  logging: 'logging: pino',
  gc: 'GC',
  other: 'other: node internals, V8',
} as const;

export type StageName = (typeof STAGES)[keyof typeof STAGES];

/** The stages in the order a call meets them, for the report. */
export const STAGE_ORDER: StageName[] = Object.values(STAGES);

const RUNTIME = 'apps/mcp-runtime/';
const inRuntime = (f: StackFrame) => f.file.startsWith(RUNTIME);

/** Our code, where a stage can be named from the file or the function. First match per frame wins. */
const OWN_RULES: Array<[StageName, (f: StackFrame) => boolean]> = [
  [STAGES.auth, (f) => f.file.startsWith('packages/auth/')],
  [STAGES.scan, (f) => f.file.startsWith('packages/security-scanner/') || (inRuntime(f) && /(rule-set-cache|security-rules)\.js$/.test(f.file))],
  [STAGES.record, (f) => f.file.startsWith('packages/queues/') || f.origin === 'bullmq' || (inRuntime(f) && (/record/i.test(f.file) || /record/i.test(f.functionName)))],
  [STAGES.meter, (f) => f.file.startsWith('packages/metering/') || (inRuntime(f) && f.functionName === 'meterToolCalls')],
  [STAGES.credential, (f) => inRuntime(f) && (f.functionName === 'credential' || f.functionName === 'magicLink')],
  [STAGES.resolution, (f) => inRuntime(f) && (f.functionName === 'packTools' || f.functionName === 'loadPair')],
  [STAGES.arguments, (f) => (f.file.startsWith('packages/connector-catalog/') && /\/validate\.js$/.test(f.file)) || f.functionName === 'validateToolArguments'],
  [
    STAGES.provider,
    (f) =>
      f.file.startsWith('packages/connector-catalog/') ||
      f.file.startsWith('packages/outbound/') ||
      f.file.startsWith('@modelcontextprotocol/sdk/dist/cjs/client/') ||
      (inRuntime(f) && (/remote-mcp\.js$/.test(f.file) || ['callBuiltin', 'callCustom', 'remoteClient'].includes(f.functionName))),
  ],
  [STAGES.mcpServer, (f) => f.file.startsWith('@modelcontextprotocol/sdk/') || f.file.startsWith(`${RUNTIME}dist/mcp/`)],
];

const DATABASE_PACKAGES = new Set(['@prisma/client', '@prisma/adapter-pg', '@prisma/driver-adapter-utils', 'pg', 'pg-protocol', 'pg-pool']);
const HTTP_SERVER_PACKAGES = new Set(['express', 'router', 'body-parser', 'raw-body', 'finalhandler', 'send', 'on-finished', 'content-type', 'type-is', 'iconv-lite']);

/** Libraries, when no frame of ours names a stage. */
const LIBRARY_RULES: Array<[StageName, (f: StackFrame) => boolean]> = [
  [STAGES.gc, (f) => f.functionName === '(garbage collector)' && f.file === ''],
  [STAGES.httpClient, (f) => f.file.includes('undici')],
  [STAGES.database, (f) => DATABASE_PACKAGES.has(f.origin)],
  [STAGES.redis, (f) => f.origin === 'ioredis' || f.origin === 'redis-parser' || f.origin === '@ioredis/commands'],
  [STAGES.logging, (f) => f.origin === 'pino' || f.origin === 'pino-http' || f.origin === 'sonic-boom'],
  // The SDK's Streamable HTTP server transport answers through hono's Node adapter.
  [STAGES.mcpServer, (f) => f.origin === '@hono/node-server'],
  [STAGES.http, (f) => HTTP_SERVER_PACKAGES.has(f.origin) || f.file.startsWith('packages/service-kit/') || /^node:_http_(server|common|incoming|outgoing)$/.test(f.file)],
];

function firstMatch(stack: readonly StackFrame[], rules: Array<[StageName, (f: StackFrame) => boolean]>): StageName | null {
  for (const frame of stack) {
    for (const [stage, matches] of rules) if (matches(frame)) return stage;
  }
  return null;
}

/** The stage a profile sample of mcp-runtime belongs to, from its stack (innermost frame first). */
export function runtimeStageOf(stack: readonly StackFrame[]): StageName {
  return firstMatch(stack, OWN_RULES) ?? firstMatch(stack, LIBRARY_RULES) ?? STAGES.other;
}
