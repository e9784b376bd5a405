import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { RedisSpendControl, type SpendLedger, type SpendSubject } from '@patchbay/gateway-spend';
import Redis from 'ioredis';

/**
 * The least a gateway that meters every request exactly can do, as a reference leg of pnpm bench
 * gateway: a keep-alive Node proxy like bare-proxy.ts that also reads the request's max_tokens,
 * reserves the worst case through gateway-spend (the gateway's own admission: one Redis round trip)
 * before forwarding, reads the answer's usage and settles its cost after. No authentication, routing,
 * translation, usage records or logs. Beside the bare proxy it shows what the per-request Redis
 * admission that budgets require costs on its own; beside the gateway, what the gateway's other work
 * costs. Run as a child process: PORT to listen on (127.0.0.1), TARGET the vendor's base URL,
 * REDIS_URL. It answers /__admission-floor/healthz itself.
 */

/** Prices the floor charges, micro-USD per token: gpt-4o-mini's ($0.15 and $0.60 per million). */
export const FLOOR_PRICE = { inputMicrosPerToken: 0.15, outputMicrosPerToken: 0.6 } as const;

/** A worst case the gateway would reserve: input tokens (about 4 bytes each) plus max_tokens, at the price. */
export function floorReservation(bodyBytes: number, maxTokens: number): number {
  return Math.ceil(Math.ceil(bodyBytes / 4) * FLOOR_PRICE.inputMicrosPerToken + maxTokens * FLOOR_PRICE.outputMicrosPerToken);
}

/** The cost of an answer's usage (OpenAI's prompt_tokens and completion_tokens), or null when it has none. */
export function floorCost(answer: Buffer): number | null {
  try {
    const usage = (JSON.parse(answer.toString('utf8')) as { usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } }).usage;
    if (typeof usage?.prompt_tokens !== 'number' || typeof usage.completion_tokens !== 'number') return null;
    return Math.ceil(usage.prompt_tokens * FLOOR_PRICE.inputMicrosPerToken + usage.completion_tokens * FLOOR_PRICE.outputMicrosPerToken);
  } catch {
    return null;
  }
}

function maxTokensOf(body: Buffer): number | null {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { max_tokens?: unknown; max_completion_tokens?: unknown };
    const max = parsed.max_tokens ?? parsed.max_completion_tokens ?? 1024;
    return typeof max === 'number' && Number.isInteger(max) && max >= 0 ? max : null;
  } catch {
    return null;
  }
}

function sendJson(res: http.ServerResponse, status: number, headers: Record<string, string>, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The floor as a server: every request is admitted (or refused with 402) against `subject`, forwarded to `target`, then settled. */
export function createAdmissionFloor(options: { target: URL; spend: Pick<RedisSpendControl, 'admit' | 'settle' | 'release'>; subject: SpendSubject }): http.Server {
  const { target, spend, subject } = options;
  const agent = new http.Agent({ keepAlive: true, maxFreeSockets: 256, scheduling: 'lifo' });
  const server = http.createServer((req, res) => {
    if (req.url === '/__admission-floor/healthz') {
      res.writeHead(200).end('ok');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const maxTokens = maxTokensOf(body);
        if (maxTokens === null) {
          sendJson(res, 400, {}, { error: { message: 'The body must be JSON with a whole max_tokens.', type: 'invalid_request_error', code: 'invalid_body' } });
          return;
        }
        const admission = await spend.admit({ subject, reserveMicros: floorReservation(body.length, maxTokens), countsAsModelRequest: true });
        if (!admission.ok) {
          sendJson(res, admission.status, admission.headers, { error: { message: admission.message, type: admission.type, code: admission.code } });
          return;
        }
        const upstream = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent }, (upstreamRes) => {
          const answer: Buffer[] = [];
          upstreamRes.on('data', (chunk: Buffer) => answer.push(chunk));
          upstreamRes.on('end', () => {
            const text = Buffer.concat(answer);
            res.writeHead(upstreamRes.statusCode ?? 502, { ...upstreamRes.headers, ...admission.headers });
            res.end(text);
            const cost = floorCost(text);
            void (cost === null ? spend.release(admission.reservation) : spend.settle(admission.reservation, cost));
          });
        });
        upstream.on('error', () => {
          void spend.release(admission.reservation);
          if (res.headersSent) res.destroy();
          else sendJson(res, 502, {}, { error: { message: 'The upstream did not answer.', type: 'api_error', code: 'upstream_failed' } });
        });
        upstream.end(body);
      })().catch(() => {
        if (res.headersSent) res.destroy();
        else sendJson(res, 503, {}, { error: { message: 'The spend counters are unreachable.', type: 'api_error', code: 'service_unavailable' } });
      });
    });
  });
  server.on('close', () => agent.destroy());
  return server;
}

/** A subject like the bench gateway's organization: paid plan, a credit that never runs out, a key without a limit. */
export function floorSubject(overrides: Partial<SpendSubject['key']> = {}): SpendSubject {
  return {
    organizationId: randomUUID(),
    environment: 'production',
    plan: 'paid',
    paymentMethodOnFile: true,
    creditMicros: 1_000_000_000_000,
    key: { hash: `${randomUUID()}${randomUUID()}`.replaceAll('-', ''), limitMicros: null, limitReset: null, byok: false, ...overrides },
    project: null,
    customer: null,
  };
}

/** Counters that start empty: the floor's organization has no usage records to rebuild from. */
export const NO_RECORDS: SpendLedger = {
  recorded: async () => ({ organizationCreditMicros: 0, projects: [], customers: [], keys: [], modelRequestsInDay: 0, rateLimitedRequestsInMinute: 0 }),
};

function main(): void {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const keyPrefix = `patchbay:bench:admission-floor:${randomUUID()}:`;
  const spend = new RedisSpendControl(redis, { ledger: NO_RECORDS, keyPrefix });
  const server = createAdmissionFloor({ target: new URL(process.env.TARGET ?? ''), spend, subject: floorSubject() });
  server.listen(Number(process.env.PORT), '127.0.0.1');
  process.once('SIGTERM', () => {
    server.close(() => {
      spend.close();
      // The run's counters go with it (the all-time hash has no TTL).
      void redis
        .keys(`${keyPrefix}*`)
        .then((keys) => (keys.length > 0 ? redis.del(...keys) : 0))
        .catch(() => 0)
        .finally(() => {
          redis.disconnect();
          process.exit(0);
        });
    });
    server.closeAllConnections();
  });
}

if (require.main === module) main();
