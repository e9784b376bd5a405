import { PlatformError } from './errors';
import { nodeHttpClient } from './node-http';
import type { HttpClient, HttpResponseLike, PlatformConnection, RequestGate, SyncTuning } from './types';

/** One keep-alive pool per process, shared by every sync it runs. */
let shared: HttpClient | undefined;
const defaultHttpClient = (): HttpClient => (shared ??= nodeHttpClient());

/** A platform answer with its body read and parsed. */
export interface PlatformResponse {
  status: number;
  headers: HttpResponseLike['headers'];
  /** The parsed JSON body, or the raw text when it is not JSON (HubSpot answers some 404s with an empty body). */
  body: unknown;
}

/** What a platform makes of a non-2xx answer. */
export type Verdict =
  /** Try the same request again after a short backoff (5xx, 408). */
  | { retry: true }
  /** The access token ran out: get a new one and try once more (Zoom Server-to-Server). */
  | { reauth: true }
  /** 429: when the platform allows the next call. */
  | { rateLimitedUntil: Date; message: string; /** The platform said nothing about when: our own backoff (counts in the streak). */ own?: boolean }
  | { error: PlatformError };

export interface RequestSpec {
  method: 'GET' | 'POST';
  /** Path under the base URL (`/marketing/v3/marketing-events`). */
  path: string;
  query?: Record<string, string | number | undefined | null>;
  /** A JSON body. */
  json?: unknown;
  /** Whether the request carried a page token / cursor (a 400 about it then means "expired or invalid"). */
  withCursor?: boolean;
}

/** What a platform client tells the shared HTTP loop. */
export interface PlatformProtocol {
  name: string;
  /** The Authorization header (Zoom fetches and caches a token here). */
  authorization(signal: AbortSignal): Promise<string>;
  /**
   * Forgets the cached token a request was refused with (`authorization`, as that request sent it; a
   * newer one fetched meanwhile stays). Returns false when there is nothing to refresh.
   */
  dropToken(authorization: string): boolean;
  /** Classifies a non-2xx answer that `commonVerdict` left (429s without Retry-After, 4xx). */
  classify(res: PlatformResponse, spec: RequestSpec, ctx: RateContext): Verdict;
  /** The rate-limit bucket a request counts in, and the window the platform counts it over (none: not paced). */
  bucket?(spec: RequestSpec): RateBucket | null;
  /** The bucket sizes an answer states (HubSpot's X-HubSpot-RateLimit-* on every answer, Zoom's on a 429). */
  limitsOf?(res: PlatformResponse, spec: RequestSpec): Array<RateBucket & { limit: number }>;
}

export interface RateBucket {
  name: string;
  windowMs: number;
}

/** Counts the 429s that had to be backed off without the platform saying how long, across resumes. */
export interface RateContext {
  /** Consecutive own-backoff 429s before this one (kept in the checkpoint). */
  streak: number;
  now: Date;
}

export const DEFAULTS = {
  timeoutMs: 30_000,
  retries: 4,
  baseBackoffMs: 200,
  maxBackoffMs: 5_000,
  maxInlineWaitMs: 1_000,
};

/** How many 429s in a row one request waits out in-run before the sync returns `rate_limited`. */
const MAX_INLINE_WAITS = 3;

export function sleepFor(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError());
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function abortError(): PlatformError {
  return new PlatformError('aborted', 'The sync was aborted before it finished.');
}

/** Exponential backoff with full jitter: a random wait in [0, min(cap, base * 2^attempt)]. */
export function jitteredBackoff(attempt: number, baseMs: number, capMs: number): number {
  return Math.round(Math.random() * Math.min(capMs, baseMs * 2 ** attempt));
}

/**
 * The HTTP loop every platform client shares: authorization, a timeout per request, short in-run
 * retries with jittered backoff on 5xx, timeouts and connections cut mid-body, short 429 waits, and
 * classification of everything else into a `PlatformError`.
 */
export class PlatformHttp {
  private readonly http: HttpClient;
  private readonly timeoutMs: number;
  readonly tuning: Required<Omit<SyncTuning, 'pageSize' | 'concurrency'>>;
  /** Consecutive own-backoff 429s; the sync engine reads and resets it. */
  rateStreak = 0;
  /** Set by the first 429 that ends a request: later requests fail the same way without asking the platform again. */
  private limited: PlatformError | null = null;

  /** Bucket sizes already handed to the gate (it is told again only when one changes). */
  private readonly learned = new Map<string, string>();

  constructor(
    private readonly conn: PlatformConnection,
    private readonly protocol: PlatformProtocol,
    tuning: SyncTuning = {},
    private readonly signal?: AbortSignal,
    private readonly gate?: RequestGate,
  ) {
    this.http = conn.http ?? defaultHttpClient();
    this.timeoutMs = conn.timeoutMs ?? DEFAULTS.timeoutMs;
    this.tuning = {
      retries: tuning.retries ?? DEFAULTS.retries,
      baseBackoffMs: tuning.baseBackoffMs ?? DEFAULTS.baseBackoffMs,
      maxBackoffMs: tuning.maxBackoffMs ?? DEFAULTS.maxBackoffMs,
      maxInlineWaitMs: tuning.maxInlineWaitMs ?? DEFAULTS.maxInlineWaitMs,
      sleep: tuning.sleep ?? sleepFor,
      now: tuning.now ?? (() => new Date()),
    };
  }

  url(spec: Pick<RequestSpec, 'path' | 'query'>, base = this.conn.baseUrl): string {
    const root = base.replace(/\/+$/, '');
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(spec.query ?? {})) if (v !== undefined && v !== null && v !== '') query.set(k, String(v));
    const qs = query.toString();
    return `${root}${spec.path}${qs ? `?${qs}` : ''}`;
  }

  /** One request with its retries; resolves with a 2xx answer or throws a classified `PlatformError`. */
  async request(spec: RequestSpec): Promise<PlatformResponse> {
    let failures = 0;
    let inlineWaits = 0;
    let reauthed = false;
    for (;;) {
      this.throwIfAborted();
      if (this.limited) throw this.limited;
      let res: PlatformResponse;
      let authorization = '';
      await this.pace(spec);
      try {
        authorization = await this.protocol.authorization(this.signalOrNever());
        res = await this.send(this.url(spec), {
          method: spec.method,
          headers: {
            authorization,
            accept: 'application/json',
            ...(spec.json !== undefined ? { 'content-type': 'application/json' } : {}),
          },
          body: spec.json !== undefined ? JSON.stringify(spec.json) : undefined,
        });
      } catch (err) {
        if (err instanceof PlatformError && err.kind !== 'transient') throw err;
        failures += 1;
        if (failures > this.tuning.retries) throw err instanceof PlatformError ? err : new PlatformError('transient', `${this.protocol.name}: ${(err as Error).message}`);
        await this.tuning.sleep(jitteredBackoff(failures - 1, this.tuning.baseBackoffMs, this.tuning.maxBackoffMs), this.signal);
        continue;
      }
      await this.learn(res, spec);
      if (res.status >= 200 && res.status < 300) {
        this.rateStreak = 0;
        return res;
      }

      const ctx: RateContext = { streak: this.rateStreak, now: this.tuning.now() };
      const verdict = commonVerdict(res, ctx, this.protocol.name) ?? this.protocol.classify(res, spec, ctx);
      if ('retry' in verdict) {
        failures += 1;
        if (failures > this.tuning.retries) {
          throw new PlatformError('transient', `${this.protocol.name} answered ${res.status} ${failures} times in a row (${describe(res.body)})`, res.status);
        }
        await this.tuning.sleep(jitteredBackoff(failures - 1, this.tuning.baseBackoffMs, this.tuning.maxBackoffMs), this.signal);
        continue;
      }
      if ('reauth' in verdict) {
        if (reauthed || !this.protocol.dropToken(authorization)) throw new PlatformError('credentials_invalid', `${this.protocol.name} refused the access token (${describe(res.body)})`, res.status);
        reauthed = true;
        continue;
      }
      if ('rateLimitedUntil' in verdict) {
        const wait = verdict.rateLimitedUntil.getTime() - this.tuning.now().getTime();
        if (wait <= this.tuning.maxInlineWaitMs && inlineWaits < MAX_INLINE_WAITS) {
          inlineWaits += 1;
          await this.tuning.sleep(Math.max(0, wait), this.signal);
          continue;
        }
        // Requests in flight together that meet the same limit count once.
        if (verdict.own) this.rateStreak = Math.max(this.rateStreak, ctx.streak + 1);
        this.limited ??= new PlatformError('rate_limited', verdict.message, 429, verdict.rateLimitedUntil);
        throw this.limited;
      }
      throw verdict.error;
    }
  }

  /**
   * Waits until the account's bucket has room for the request. A wait longer than `maxInlineWaitMs`
   * ends the request as rate limited at that time (the sync pauses and resumes then, without having
   * sent the request the platform would refuse).
   */
  private async pace(spec: RequestSpec): Promise<void> {
    const bucket = this.gate ? this.protocol.bucket?.(spec) : null;
    if (!this.gate || !bucket) return;
    for (;;) {
      this.throwIfAborted();
      if (this.limited) throw this.limited;
      const wait = await this.gate.take(bucket.name, bucket.windowMs);
      if (wait <= 0) return;
      if (wait > this.tuning.maxInlineWaitMs) {
        const until = new Date(this.tuning.now().getTime() + wait);
        this.limited ??= new PlatformError('rate_limited', `${this.protocol.name}: the account's ${bucket.name} request limit is used up until ${until.toISOString()}`, 429, until);
        throw this.limited;
      }
      await this.tuning.sleep(wait, this.signal);
    }
  }

  private async learn(res: PlatformResponse, spec: RequestSpec): Promise<void> {
    if (!this.gate || !this.protocol.limitsOf) return;
    for (const l of this.protocol.limitsOf(res, spec)) {
      const size = `${l.limit}/${l.windowMs}`;
      if (this.learned.get(l.name) === size) continue;
      this.learned.set(l.name, size);
      await this.gate.learn(l.name, l.limit, l.windowMs).catch(() => this.learned.delete(l.name));
    }
  }

  /** A request outside the base URL (Zoom's token endpoint): timeout and abort, no classification. */
  async sendRaw(url: string, init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string }): Promise<PlatformResponse> {
    return this.send(url, init);
  }

  private async send(url: string, init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string }): Promise<PlatformResponse> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = this.signal ? AbortSignal.any([this.signal, timeout]) : timeout;
    let raw: HttpResponseLike;
    let text: string;
    try {
      raw = await this.http(url, { ...init, signal });
      // A connection cut mid-body rejects here (the body is shorter than its Content-Length).
      text = await raw.text();
    } catch (err) {
      this.throwIfAborted();
      const why = timeout.aborted ? `no answer within ${this.timeoutMs} ms` : `the connection failed (${(err as Error).message})`;
      throw new PlatformError('transient', `${this.protocol.name}: ${why}`);
    }
    let body: unknown = text;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        // A 2xx whose body is not JSON was cut short by something on the way: worth another try.
        if (raw.status >= 200 && raw.status < 300) throw new PlatformError('transient', `${this.protocol.name}: the answer was not complete JSON`);
      }
    }
    return { status: raw.status, headers: raw.headers, body };
  }

  private throwIfAborted(): void {
    if (this.signal?.aborted) throw abortError();
  }

  private signalOrNever(): AbortSignal {
    return this.signal ?? new AbortController().signal;
  }
}

/** What every platform's answer means the same way: a 429 with Retry-After, and 5xx / 408 (worth another try). */
function commonVerdict(res: PlatformResponse, ctx: RateContext, name: string): Verdict | null {
  if (res.status === 429) {
    const stated = parseRetryAfter(res.headers.get('retry-after'), ctx.now);
    return stated ? { rateLimitedUntil: stated, message: `${name} rate limit: ${describe(res.body)}` } : null;
  }
  return res.status >= 500 || res.status === 408 ? { retry: true } : null;
}

/** The body as an object to read error fields from (`{}` for text or nothing). */
export function bodyFields(res: PlatformResponse): Record<string, unknown> {
  return typeof res.body === 'object' && res.body !== null ? (res.body as Record<string, unknown>) : {};
}

/** A platform whose credentials are one bearer token that cannot be refreshed here (HubSpot, Eventbrite). */
export function bearerTokenProtocol(name: string, token: string | undefined, what: string, classify: PlatformProtocol['classify']): PlatformProtocol {
  return {
    name,
    authorization: async () => {
      if (!token) throw new PlatformError('credentials_invalid', `${name} needs credentials.access_token (${what}).`);
      return `Bearer ${token}`;
    },
    dropToken: () => false,
    classify,
  };
}

/** A short, credential-free description of an error body for messages. */
export function describe(body: unknown): string {
  if (typeof body === 'string') return body === '' ? 'no body' : body.slice(0, 200);
  if (typeof body !== 'object' || body === null) return String(body);
  const b = body as Record<string, unknown>;
  const parts = [b.category, b.error, b.code, b.message ?? b.error_description ?? b.reason].filter((p) => p !== undefined && p !== null && p !== '');
  return parts.length > 0 ? parts.map(String).join(': ').slice(0, 300) : JSON.stringify(body).slice(0, 200);
}

/** Parses a Retry-After header: a number of seconds, or an HTTP/ISO date (Zoom's daily limit). */
export function parseRetryAfter(value: string | null, now: Date): Date | null {
  if (value === null || value.trim() === '') return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return new Date(now.getTime() + Math.ceil(Number(trimmed) * 1000));
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : new Date(at);
}

/**
 * When to try again after a 429 that says nothing about it: `firstMs` doubled per consecutive such
 * 429 (the streak survives resumes in the checkpoint), capped, with up to 20% jitter on top so many
 * accounts do not come back in the same second.
 */
export function ownBackoff(ctx: RateContext, firstMs: number, capMs: number): Date {
  const wait = Math.min(capMs, firstMs * 2 ** Math.min(ctx.streak, 20));
  return new Date(ctx.now.getTime() + wait + Math.round(Math.random() * wait * 0.2));
}

/** An OAuth access token is refreshed this long before it expires. */
const REFRESH_MARGIN_MS = 60_000;

/**
 * Wraps a bearer-token protocol for OAuth 2.0 user tokens: a token past (or near) its `expires_at` is
 * refreshed before use, and a 401 refreshes once and retries the request (HubSpot advises refreshing
 * by `expires_in`; a 401 then means the token was revoked, which the retry with a fresh token shows).
 * Without `refreshAccessToken` or a `refresh_token` (private-app tokens, Eventbrite) it changes nothing.
 */
export function withOAuthRefresh(base: PlatformProtocol, conn: PlatformConnection, now: () => Date): PlatformProtocol {
  const refresh = conn.refreshAccessToken;
  if (!refresh || !conn.credentials.refresh_token) return base;
  let token = conn.credentials.access_token ?? '';
  const stated = Number(conn.credentials.expires_at);
  let expiresAt: number | null = Number.isFinite(stated) && stated > 0 ? stated : null;
  let refreshing: Promise<void> | null = null;
  const renew = (signal: AbortSignal): Promise<void> =>
    (refreshing ??= refresh(signal)
      .then((fresh) => {
        token = fresh.accessToken;
        expiresAt = fresh.expiresAt;
      })
      .finally(() => {
        refreshing = null;
      }));
  return {
    // The platform's own rate-limit buckets and the rest stay as they are.
    ...base,
    authorization: async (signal) => {
      if (token === '' || (expiresAt !== null && expiresAt - REFRESH_MARGIN_MS <= now().getTime())) await renew(signal);
      return `Bearer ${token}`;
    },
    dropToken: (authorization) => {
      // Only the token that was refused: one refreshed meanwhile by another request stays.
      if (authorization === `Bearer ${token}`) expiresAt = 0;
      return true;
    },
    classify: (res, spec, ctx) => (res.status === 401 ? { reauth: true } : base.classify(res, spec, ctx)),
  };
}
