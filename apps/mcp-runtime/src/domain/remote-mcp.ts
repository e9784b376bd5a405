import { StringDecoder } from 'node:string_decoder';
import { BlockedDestinationError, discard, OutboundError, outboundFailure, readBody, type OutboundHttp, type OutboundResponse } from '@patchbay/outbound';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { SseParser } from './sse';

/** Why a remote MCP server gave no result: a model-facing message comes with each. */
export type RemoteFailure = 'unreachable' | 'blocked_destination' | 'timeout' | 'cancelled' | 'failed' | 'input_required';

export class RemoteMcpError extends Error {
  constructor(
    readonly kind: RemoteFailure,
    message: string,
    /** For a server's -32021: the client capabilities it said the call needs (the agent's, since Patchbay declares the agent's own). */
    readonly requiredCapabilities?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'RemoteMcpError';
  }
}

/** The server forgot our session (HTTP 404 to a request that carried one): start a new one. */
class SessionGone extends Error {}

interface Session {
  /** Mcp-Session-Id, when the server keeps sessions (2025 revisions only). */
  id: string | undefined;
  protocolVersion: string;
  /** `modern`: the server speaks 2026-07-28 (no handshake, `_meta` and the standard headers on every request). */
  era: 'legacy' | 'modern';
  /** Modern: until when the server's server/discover answer may be kept (its `ttlMs`); the next call after it probes again. */
  discoveredUntil?: number;
}

/** The longest a server/discover answer is kept whatever its `ttlMs` says (the SDK client's MAX_CACHE_TTL_MS). */
const MAX_DISCOVER_TTL_MS = 24 * 60 * 60 * 1000;
/** The least time between two probes of one server for one client, whatever its `ttlMs` says. */
const DEFAULT_REDISCOVER_MIN_MS = 10_000;

/** The stateless revisions Patchbay's client speaks, preferred first. */
const MODERN_VERSIONS: readonly string[] = ['2026-07-28'];
/** Rounds of `input_required` answered for one call before giving up (the SDK client's default too). */
const MAX_INPUT_ROUNDS = 10;

interface JsonRpcMessage {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown; data?: unknown };
}

/** A JSON-RPC notification a server sent about the call it is working on. */
export interface RemoteNotification {
  method: string;
  params?: Record<string, unknown>;
}

/** A request a server sent while working on a call (sampling, elicitation, roots...). */
export interface RemoteRequest {
  method: string;
  params?: unknown;
}

/** What answers a RemoteRequest: its result, or a JSON-RPC error. */
export type RemoteReply = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

/**
 * What the caller of one tools/call wants besides its result. Without any of these the call costs
 * nothing more than before: no progress token is sent, notifications are skipped, and requests
 * other than ping are refused.
 */
export interface RemoteCallHooks {
  /**
   * The agent's progress token. The remote gets a token of ours (unique among every call on the
   * shared session), and its progress notifications come back to `onNotification` with this one.
   */
  progressToken?: string | number;
  /** A notification about this call: `notifications/progress` (with the agent's token) and `notifications/message`. */
  onNotification?(notification: RemoteNotification): void;
  /** A request the server sent while working on this call (ping is answered without it). */
  onRequest?(request: RemoteRequest): Promise<RemoteReply>;
  /**
   * The level of `notifications/message` asked of a 2026-07-28 server (its `_meta` logLevel): null asks for none
   * (the agent asked for none on this request), absent asks for `debug` when `onNotification` reads them.
   */
  logLevel?: string | null;
  /** Cancels the call: the server gets `notifications/cancelled` and the call ends as `cancelled`. */
  signal?: AbortSignal;
  /** A 2026-07-28 server's `input_required` result is returned as it is (for a 2026-07-28 agent to answer) rather than answered here. */
  passInputRequired?: boolean;
  /** Answers to an `input_required` the caller passed on earlier: the call is sent with them (and the server's state) from its first round. */
  resume?: { inputResponses: Record<string, unknown>; requestState?: unknown };
}

/**
 * The client capabilities Patchbay declares to a remote server at initialize: the agent's own
 * sampling, elicitation and roots, so a server asks only what the agent can answer. Each distinct set has
 * a session of its own.
 */
export interface RemoteClientCapabilities {
  sampling?: Record<string, unknown>;
  elicitation?: Record<string, unknown>;
  roots?: Record<string, unknown>;
}

export interface RemoteMcpOptions {
  url: string;
  /** Sent as `Authorization: Bearer <secret>`; never appears in errors. */
  secret: string | null;
  http: OutboundHttp;
  timeoutMs: number;
  /** Largest answer read, in bytes (an SSE stream counts all its events). */
  maxResponseBytes: number;
  capabilities?: RemoteClientCapabilities;
  /** The least time between two server/discover probes of a modern server whose answer went stale (default 10 s). */
  rediscoverMinMs?: number;
  /** Waits `ms` (tests make it instant); default setTimeout. */
  sleep?: (ms: number) => Promise<void>;
}

const CLIENT_INFO = { name: 'patchbay-mcp-runtime', version: '1.0.0' };

/** The wait before resuming a stream when the server gave no `retry:` (the SDK client's first delay). */
const DEFAULT_RETRY_MS = 1_000;
/** Resumptions of one call's stream without any new event before it gives up. */
const MAX_IDLE_RESUMPTIONS = 3;

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** How reading one stream ended: the response, or the stream closed before it (maybe resumable). */
type StreamEnd = { answer: JsonRpcMessage } | { answer: null; lastEventId: string; retryMs: number | null; sawEvent: boolean };

/** What one call tracks while its answer streams in. */
interface CallState {
  id: number;
  session: Session;
  deadline: number;
  hooks: RemoteCallHooks | undefined;
  /** Our progress token on the remote, when the agent gave one. */
  remoteToken: string | undefined;
  /** Whether a timeout sends notifications/cancelled (never for initialize, which may not be cancelled). */
  cancellable: boolean;
}

/**
 * A client of one remote MCP server over the Streamable HTTP transport (protocol 2025-03-26 to
 * 2025-11-25), for the one thing the runtime asks of it: tools/call. It initializes once, keeps the
 * session id and negotiated protocol version the server gave, sends both on every request, and reads
 * the answer as JSON (a message or a batch) or as an SSE stream (see SseParser), stopping at the
 * response to its request. On the way it passes the call's progress and log notifications to the
 * caller, answers `ping`, hands other server requests to the caller (sampling, elicitation) or refuses
 * them, and resumes a stream the server closed before the response (`GET` with `Last-Event-ID` after
 * the `retry:` wait, as SEP-1699 polling asks). A server that forgets the session (404) gets a new
 * initialize and the call once more; so does a connection that broke before any answer. A call the
 * caller cancels, or one past its deadline, is cancelled on the server too (`notifications/cancelled`).
 *
 * It replaces the SDK's Client and StreamableHTTPClientTransport on this path: those build a web
 * Request, Response and stream pipeline and parse every message with zod per call, which was about
 * 430 µs of the runtime's CPU per forwarded call in `pnpm bench mcp --profile`.
 */
export class RemoteMcpClient {
  private session: Promise<Session> | null = null;
  /** The session `session` resolved to, once it has (read synchronously to see whether a discover answer expired). */
  private settled: Session | null = null;
  /** The probe of a modern server whose discover answer went stale, while it runs. */
  private rediscovering: Promise<void> | null = null;
  /** The server answered the 2026-07-28 probe as a 2025 server does: later sessions start with initialize. */
  private legacy = false;
  private nextId = 1;
  private readonly url: URL;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: RemoteMcpOptions) {
    this.url = new URL(options.url);
    this.sleep = options.sleep ?? defaultSleep;
  }

  async callTool(name: string, args: Record<string, unknown>, hooks?: RemoteCallHooks): Promise<CallToolResult> {
    const deadline = Date.now() + this.options.timeoutMs;
    for (let attempt = 0; ; attempt += 1) {
      if (hooks?.signal?.aborted) throw new RemoteMcpError('cancelled', 'the call was cancelled');
      const session = await this.currentSession(deadline);
      try {
        // 2026-07-28: a server asks for input by answering `input_required`; the call is sent again, with a new id, with the answers.
        let retry: { inputResponses: Record<string, unknown>; requestState?: unknown } | undefined = session.era === 'modern' ? hooks?.resume : undefined;
        for (let round = 0; ; round += 1) {
          const id = this.nextId++;
          const remoteToken = hooks?.progressToken !== undefined ? `patchbay-${id}` : undefined;
          const params: Record<string, unknown> = { name, arguments: args };
          if (session.era === 'modern') params._meta = this.envelope(session, remoteToken, hooks?.onNotification === undefined ? null : hooks.logLevel === undefined ? 'debug' : hooks.logLevel);
          else if (remoteToken) params._meta = { progressToken: remoteToken };
          if (retry) Object.assign(params, retry);
          const result = await this.request(session, id, 'tools/call', params, { id, session, deadline, hooks, remoteToken, cancellable: true });
          if (session.era !== 'modern' || !isInputRequired(result)) return asCallToolResult(result);
          if (hooks?.passInputRequired) return result as unknown as CallToolResult;
          if (round + 1 >= MAX_INPUT_ROUNDS) throw new RemoteMcpError('failed', `it asked for input ${MAX_INPUT_ROUNDS} times in a row without answering`);
          retry = await this.answerInputRequests(result, hooks);
        }
      } catch (err) {
        const gone = err instanceof SessionGone || (err instanceof OutboundError && err.kind === 'network' && !(err instanceof StreamBroke));
        if (gone) {
          this.session = null;
          this.settled = null;
        }
        if (!(attempt === 0 && gone)) throw describe(err);
      }
    }
  }

  /**
   * Answers an `input_required` result's requests through the caller (the agent's own elicitation or
   * sampling, relayed), or ends the call with a message its tool passes on: what the server asked,
   * and why Patchbay could not answer.
   */
  private async answerInputRequests(result: InputRequiredResult, hooks: RemoteCallHooks | undefined): Promise<{ inputResponses: Record<string, unknown>; requestState?: unknown }> {
    const inputResponses: Record<string, unknown> = {};
    for (const [key, request] of Object.entries(result.inputRequests ?? {})) {
      const method = typeof request?.method === 'string' ? request.method : 'an unknown request';
      if (!hooks?.onRequest || !RELAYED_METHODS.has(method)) {
        throw new RemoteMcpError('input_required', `it needs input before it can answer (${method.slice(0, 60)}), which ${hooks?.onRequest ? `Patchbay does not relay` : `this call cannot relay: ${cannotRelay(method).replace(/^Method not found: /, '')}`}`);
      }
      const reply = await hooks.onRequest({ method, params: request?.params });
      if ('error' in reply) throw new RemoteMcpError('input_required', `it needs input (${method}) that the agent did not give: ${reply.error.message.slice(0, 200)}`);
      inputResponses[key] = reply.result;
    }
    return result.requestState !== undefined ? { inputResponses, requestState: result.requestState } : { inputResponses };
  }

  /** Ends the session, if the server keeps one (DELETE with its id, as the transport asks); never throws. */
  async close(): Promise<void> {
    const session = await this.session?.catch(() => null);
    this.session = null;
    this.settled = null;
    if (!session?.id || session.era === 'modern') return;
    const res = await this.options.http(this.url, { method: 'DELETE', headers: this.headers(session, 'application/json, text/event-stream'), timeoutMs: 1_000 }).catch(() => null);
    if (res) discard(res);
  }

  private currentSession(deadline: number): Promise<Session> {
    // A modern server's discover answer past its ttlMs is asked again, beside the call rather than before it: the call
    // names its version itself (a server that dropped it answers -32022), so only the era's next calls depend on it.
    const settled = this.settled;
    if (settled?.discoveredUntil !== undefined && settled.discoveredUntil <= Date.now() && !this.rediscovering) {
      this.rediscovering = this.rediscover(settled).finally(() => {
        this.rediscovering = null;
      });
    }
    if (!this.session) {
      // The era is probed once per client; a legacy server that forgot its session gets initialize straight away.
      const opening = this.legacy
        ? this.initialize(deadline)
        : this.discover(deadline).then((modern) => {
            if (modern) return modern;
            this.legacy = true;
            return this.initialize(deadline);
          });
      this.session = opening;
      // A failed initialize is not kept: the next call tries again.
      opening.then(
        (session) => {
          if (this.session === opening) this.settled = session;
        },
        () => {
          if (this.session === opening) this.session = null;
        },
      );
    }
    return this.session.catch((err: unknown) => {
      throw describe(err, true);
    });
  }

  /**
   * Probes a modern server again once its discover answer is stale: still modern, its new `ttlMs` is kept (but
   * never asked again within `rediscoverMinMs`, so the SDK's default `ttlMs: 0` costs one probe per interval, not
   * one per call); answered as a 2025 server would, the next call initializes; unreachable, nothing changes (the
   * calls say so themselves).
   */
  private async rediscover(current: Session): Promise<void> {
    // No second probe while this one runs, nor within the floor if it fails.
    current.discoveredUntil = Date.now() + (this.options.rediscoverMinMs ?? DEFAULT_REDISCOVER_MIN_MS);
    let fresh: Session | null;
    try {
      fresh = await this.discover(Date.now() + this.options.timeoutMs);
    } catch {
      return;
    }
    if (this.settled !== current) return;
    if (fresh) {
      current.discoveredUntil = fresh.discoveredUntil;
      return;
    }
    this.legacy = true;
    this.session = null;
    this.settled = null;
  }

  /** `_meta` of a 2026-07-28 request: the version, the agent's capabilities, who we are; logs asked for when someone reads them. */
  private envelope(session: Session, progressToken?: string, logLevel: string | null = null): Record<string, unknown> {
    return {
      'io.modelcontextprotocol/protocolVersion': session.protocolVersion,
      'io.modelcontextprotocol/clientCapabilities': this.options.capabilities ?? {},
      'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
      ...(logLevel ? { 'io.modelcontextprotocol/logLevel': logLevel } : {}),
      ...(progressToken !== undefined ? { progressToken } : {}),
    };
  }

  /**
   * The 2026-07-28 probe: `server/discover` with the envelope. A server that answers it is modern
   * (the session holds no id, only the version); a `-32022` naming a version Patchbay speaks is
   * tried once more with it; 401 and 403 are failures, not era evidence; anything else (an error
   * of the 2025 revisions, a 404, a body that is not JSON-RPC) means a legacy server: null, and the
   * caller runs initialize. The verdict lives as long as this client (per server, secret and capabilities).
   */
  private async discover(deadline: number, version = MODERN_VERSIONS[0]!, tried: string[] = []): Promise<Session | null> {
    const session: Session = { id: undefined, protocolVersion: version, era: 'modern' };
    const id = this.nextId++;
    const message = { jsonrpc: '2.0', id, method: 'server/discover', params: { _meta: this.envelope(session) } };
    let res: OutboundResponse;
    try {
      res = await this.post(session, message, deadline, undefined, 'server/discover');
    } catch (err) {
      throw describe(err, true);
    }
    if (res.status === 401 || res.status === 403) {
      const text = (await readBody(res, 2_048, 'truncate').catch(() => ({ bytes: Buffer.alloc(0) }))).bytes.toString('utf8');
      throw new RemoteMcpError('failed', `HTTP ${res.status}${serverSaid(text)}`);
    }
    let answer: JsonRpcMessage | null = null;
    const type = (res.headers.get('content-type') ?? '').toLowerCase();
    try {
      if (res.status >= 200 && res.status < 300 && type.startsWith('text/event-stream')) {
        answer = await this.readUntilAnswer(res, { id, session, deadline, hooks: undefined, remoteToken: undefined, cancellable: false });
      } else {
        const parsed = JSON.parse((await readBody(res, 65_536, 'truncate')).bytes.toString('utf8')) as unknown;
        answer = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as JsonRpcMessage) : null;
      }
    } catch {
      return null;
    }
    const result = answer?.result as { supportedVersions?: unknown; ttlMs?: unknown } | undefined;
    if (res.status >= 200 && res.status < 300 && Array.isArray(result?.supportedVersions) && result.supportedVersions.includes(version)) {
      // Cache hints honoured: kept for its ttlMs (at least rediscoverMinMs, at most a day), or for the client's life when it gives none.
      if (typeof result.ttlMs === 'number' && Number.isInteger(result.ttlMs) && result.ttlMs >= 0) {
        session.discoveredUntil = Date.now() + Math.max(Math.min(result.ttlMs, MAX_DISCOVER_TTL_MS), this.options.rediscoverMinMs ?? DEFAULT_REDISCOVER_MIN_MS);
      }
      return session;
    }
    const data = answer?.error?.data as { supported?: unknown } | undefined;
    if (answer?.error?.code === -32022 && Array.isArray(data?.supported)) {
      const supported = data.supported.filter((v): v is string => typeof v === 'string');
      const next = MODERN_VERSIONS.find((v) => supported.includes(v) && v !== version && !tried.includes(v));
      if (next) return this.discover(deadline, next, [...tried, version]);
      if (!supported.some((v) => SUPPORTED_PROTOCOL_VERSIONS.includes(v))) {
        throw new RemoteMcpError('failed', `it supports protocol versions ${supported.slice(0, 5).join(', ').slice(0, 120) || '(none named)'}; Patchbay speaks ${MODERN_VERSIONS.join(', ')} and ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`);
      }
    }
    return null;
  }

  private async initialize(deadline: number): Promise<Session> {
    const opening: Session = { id: undefined, protocolVersion: LATEST_PROTOCOL_VERSION, era: 'legacy' };
    const id = this.nextId++;
    const params = { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: this.options.capabilities ?? {}, clientInfo: CLIENT_INFO };
    const result = (await this.request(opening, id, 'initialize', params, { id, session: opening, deadline, hooks: undefined, remoteToken: undefined, cancellable: false })) as { protocolVersion?: unknown };
    const version = typeof result?.protocolVersion === 'string' ? result.protocolVersion : '';
    if (!SUPPORTED_PROTOCOL_VERSIONS.includes(version)) throw new RemoteMcpError('failed', `it answered initialize with protocol version "${version.slice(0, 40)}", which Patchbay does not support`);
    const session: Session = { id: opening.id, protocolVersion: version, era: 'legacy' };
    const note = await this.post(session, { jsonrpc: '2.0', method: 'notifications/initialized' }, deadline);
    discard(note);
    if (note.status === 404 && session.id) throw new SessionGone();
    if (note.status < 200 || note.status >= 300) throw new RemoteMcpError('failed', `it answered notifications/initialized with HTTP ${note.status}`);
    return session;
  }

  private headers(session: Session, accept: string): Record<string, string> {
    const headers: Record<string, string> = { accept, 'mcp-protocol-version': session.protocolVersion };
    if (this.options.secret) headers.authorization = `Bearer ${this.options.secret}`;
    if (session.id) headers['mcp-session-id'] = session.id;
    return headers;
  }

  /** A POST; a 2026-07-28 request also names its method (`Mcp-Method`) and, for tools/call, the tool (`Mcp-Name`). */
  private post(session: Session, message: object, deadline: number, signal?: AbortSignal, method?: string, name?: string): Promise<OutboundResponse> {
    const headers = this.headers(session, 'application/json, text/event-stream');
    headers['content-type'] = 'application/json';
    if (session.era === 'modern' && method) {
      headers['mcp-method'] = method;
      if (name !== undefined) headers['mcp-name'] = headerValue(name);
    }
    return this.options.http(this.url, { method: 'POST', headers, body: JSON.stringify(message), signal, timeoutMs: Math.max(1, deadline - Date.now()) });
  }

  /** Sends a message that needs no answer (a response, a cancellation); never throws, never waits. */
  private notify(session: Session, message: object, deadline: number): void {
    this.post(session, message, Math.max(deadline, Date.now() + 5_000)).then(discard, () => undefined);
  }

  /** One JSON-RPC request; the result, or a RemoteMcpError with the server's error. Learns the session id from initialize. */
  private async request(session: Session, id: number, method: string, params: object, call: CallState): Promise<unknown> {
    const signal = call.hooks?.signal;
    let res: OutboundResponse;
    try {
      const name = method === 'tools/call' ? (params as { name?: unknown }).name : undefined;
      res = await this.post(session, { jsonrpc: '2.0', id, method, params }, call.deadline, signal, method, typeof name === 'string' ? name : undefined);
    } catch (err) {
      throw this.ended(call, err);
    }
    if (res.status === 404 && session.id) {
      discard(res);
      throw new SessionGone();
    }
    if (res.status < 200 || res.status >= 300) {
      const text = (await readBody(res, 2_048, 'truncate').catch(() => ({ bytes: Buffer.alloc(0) }))).bytes.toString('utf8');
      const missing = session.era === 'modern' ? missingCapabilities(text) : null;
      if (missing) throw new RemoteMcpError('input_required', `it needs input that only an agent declaring the ${missing.names} capability can give (in its initialize, or in the request's _meta clientCapabilities), on a call answered as text/event-stream`, missing.required);
      throw new RemoteMcpError('failed', `HTTP ${res.status}${serverSaid(text)}`);
    }
    if (method === 'initialize') session.id = res.headers.get('mcp-session-id') ?? undefined;
    const type = (res.headers.get('content-type') ?? '').toLowerCase();
    let answer: JsonRpcMessage | null;
    if (type.startsWith('text/event-stream')) {
      answer = await this.readUntilAnswer(res, call);
    } else if (type.startsWith('application/json') || type === '') {
      let bytes: Buffer;
      try {
        bytes = (await readBody(res, this.options.maxResponseBytes, 'error')).bytes;
      } catch (err) {
        throw this.ended(call, err, true);
      }
      answer = this.handleMessages(parseJson(bytes.toString('utf8'), 'its answer'), call);
    } else {
      discard(res);
      throw new RemoteMcpError('failed', `it answered with content type "${type.slice(0, 60)}" (expected application/json or text/event-stream)`);
    }
    if (!answer) throw new RemoteMcpError('failed', `its answer held no response to request ${id}`);
    if (answer.error !== undefined) {
      const code = typeof answer.error?.code === 'number' ? answer.error.code : 'unknown';
      const message = typeof answer.error?.message === 'string' ? answer.error.message.slice(0, 300) : 'no message';
      throw new RemoteMcpError('failed', `MCP error ${code}: ${message}`);
    }
    return answer.result;
  }

  /**
   * Reads the call's SSE stream until the response arrives. A stream the server closes before it,
   * after an event with an id, is resumed with GET and `Last-Event-ID` once the server's `retry:`
   * wait has passed (within the call's deadline), as often as the server keeps sending new events.
   */
  private async readUntilAnswer(first: OutboundResponse, call: CallState): Promise<JsonRpcMessage | null> {
    let res = first;
    let idle = 0;
    for (;;) {
      const end = await this.readStream(res, call);
      if (end.answer) return end.answer;
      if (!end.lastEventId) throw new RemoteMcpError('failed', 'its event stream ended before the response, without an event id to resume from');
      idle = end.sawEvent ? 0 : idle + 1;
      if (idle >= MAX_IDLE_RESUMPTIONS) throw new RemoteMcpError('failed', `its event stream ended before the response ${MAX_IDLE_RESUMPTIONS} times in a row without a new event`);
      const wait = end.retryMs ?? DEFAULT_RETRY_MS;
      if (Date.now() + wait >= call.deadline) throw this.ended(call, new OutboundError('timeout', 'no answer in time'));
      await this.sleep(wait);
      if (call.hooks?.signal?.aborted) throw this.ended(call, new OutboundError('aborted', 'the request was cancelled'));
      const headers = this.headers(call.session, 'text/event-stream');
      headers['last-event-id'] = end.lastEventId;
      try {
        res = await this.options.http(this.url, { method: 'GET', headers, signal: call.hooks?.signal, timeoutMs: Math.max(1, call.deadline - Date.now()) });
      } catch (err) {
        throw this.ended(call, err, true);
      }
      const type = (res.headers.get('content-type') ?? '').toLowerCase();
      if (res.status !== 200 || !type.startsWith('text/event-stream')) {
        discard(res);
        throw new RemoteMcpError('failed', `its event stream ended before the response and resuming it (GET with Last-Event-ID) was answered with HTTP ${res.status}`);
      }
    }
  }

  /** Reads one SSE stream until the response to the call arrives or the stream ends. */
  private async readStream(res: OutboundResponse, call: CallState): Promise<StreamEnd> {
    // A multi-byte character may straddle two chunks.
    const decoder = new StringDecoder('utf8');
    const parser = new SseParser();
    let total = 0;
    let sawEvent = false;
    try {
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        total += chunk.byteLength;
        if (total > this.options.maxResponseBytes) throw new OutboundError('too_large', `the answer is larger than ${this.options.maxResponseBytes} bytes`);
        if (Date.now() > call.deadline) throw new OutboundError('timeout', 'no answer in time');
        for (const event of parser.push(decoder.write(chunk))) {
          sawEvent = true;
          // Events of another type are not MCP messages; a priming event's empty data carries none.
          if (event.type !== 'message' || event.data.trim() === '') continue;
          const answer = this.handleMessages(parseJson(event.data, 'an event of its stream'), call);
          if (answer) return { answer };
        }
      }
    } catch (err) {
      throw err instanceof RemoteMcpError ? err : this.ended(call, err, true);
    } finally {
      res.body.destroy();
    }
    return { answer: null, lastEventId: parser.eventId, retryMs: parser.retryMs, sawEvent };
  }

  /**
   * Goes through one JSON-RPC message or batch from the server: returns the response to the call if
   * it is there, passes the call's notifications on and answers the server's requests.
   */
  private handleMessages(parsed: unknown, call: CallState): JsonRpcMessage | null {
    const messages = (Array.isArray(parsed) ? parsed : [parsed]) as JsonRpcMessage[];
    let answer: JsonRpcMessage | null = null;
    for (const m of messages) {
      if (typeof m !== 'object' || m === null) continue;
      if (m.method === undefined) {
        if (m.id === call.id && (m.result !== undefined || m.error !== undefined)) answer ??= m;
        continue;
      }
      if (typeof m.method !== 'string') continue;
      if (typeof m.id === 'string' || typeof m.id === 'number') this.answerServerRequest(m, call);
      else this.passNotification(m as { method: string; params?: unknown }, call);
    }
    return answer;
  }

  private passNotification(message: { method: string; params?: unknown }, call: CallState): void {
    const hooks = call.hooks;
    if (!hooks?.onNotification) return;
    const params = typeof message.params === 'object' && message.params !== null ? (message.params as Record<string, unknown>) : undefined;
    if (message.method === 'notifications/progress') {
      // Only this call's progress, under the agent's own token.
      if (call.remoteToken === undefined || params?.progressToken !== call.remoteToken) return;
      hooks.onNotification({ method: message.method, params: { ...params, progressToken: hooks.progressToken } });
    } else if (message.method === 'notifications/message') {
      hooks.onNotification({ method: message.method, params });
    }
  }

  /**
   * Answers a request the server sent on the stream of our call, by POST as the transport says:
   * `ping` with an empty result; others through the caller's `onRequest` (sampling, elicitation);
   * anything else with Method not found, so a server waiting on it goes on rather than holding the
   * call until its timeout. The call's stream keeps being read meanwhile.
   */
  private answerServerRequest(message: JsonRpcMessage, call: CallState): void {
    const method = String(message.method);
    const reply = (answer: RemoteReply) => this.notify(call.session, { jsonrpc: '2.0', id: message.id, ...answer }, call.deadline);
    if (method === 'ping') return reply({ result: {} });
    if (!call.hooks?.onRequest) return reply({ error: { code: -32601, message: cannotRelay(method) } });
    call.hooks.onRequest({ method, params: message.params }).then(reply, () => reply({ error: { code: -32603, message: `Internal error: Patchbay could not relay ${method.slice(0, 100)}` } }));
  }

  /**
   * The error for a call that ended without its answer. A call past its deadline or cancelled by
   * the caller is cancelled on the server too, as the cancellation utility asks of a client.
   * `answering`: the server had already started its answer, so the call is not sent again.
   */
  private ended(call: CallState, err: unknown, answering = false): Error {
    const failure = err instanceof RemoteMcpError || err instanceof SessionGone ? err : outboundFailure(err, call.hooks?.signal);
    const cancelled = call.hooks?.signal?.aborted === true;
    if (cancelled || (failure instanceof OutboundError && failure.kind === 'timeout')) {
      // 2026-07-28: closing the request's stream is the cancellation (the abort or the timeout closed it).
      if (call.cancellable && call.session.era === 'legacy') {
        const reason = cancelled ? 'The agent cancelled the call.' : 'Patchbay stopped waiting: the call took longer than its timeout.';
        this.notify(call.session, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: call.id, reason } }, call.deadline);
      }
      if (cancelled) return new RemoteMcpError('cancelled', 'the call was cancelled');
    }
    if (answering && failure instanceof OutboundError && failure.kind === 'network') return new StreamBroke(failure.message, failure.code);
    return failure;
  }
}

/** A connection that broke while a request was already being answered. */
class StreamBroke extends OutboundError {
  constructor(message: string, code: string | undefined) {
    super('network', message, code);
  }
}

/** A server's requests Patchbay relays to the agent, and the client capability each needs. */
export const RELAYED_METHODS: ReadonlyMap<string, 'sampling' | 'elicitation' | 'roots'> = new Map([
  ['sampling/createMessage', 'sampling'],
  ['elicitation/create', 'elicitation'],
  ['roots/list', 'roots'],
]);

/** Why a server's request got Method not found, in words its tool can pass on to the model. */
export function cannotRelay(method: string): string {
  const capability = RELAYED_METHODS.get(method);
  return capability
    ? `Method not found: Patchbay cannot relay ${method} on this call; the agent must declare the ${capability} capability (at initialize, or in the request's _meta) and accept text/event-stream answers.`
    : `Method not found: Patchbay relays only sampling/createMessage, elicitation/create and roots/list to the agent, not ${method.slice(0, 100)}.`;
}

/** The capabilities a -32021 (MissingRequiredClientCapability) answer names, as given and in words; null for any other answer. */
function missingCapabilities(text: string): { names: string; required: Record<string, unknown> } | null {
  try {
    const error = (JSON.parse(text) as JsonRpcMessage).error;
    if (error?.code !== -32021) return null;
    const given = (error.data as { requiredCapabilities?: unknown } | undefined)?.requiredCapabilities;
    const required = typeof given === 'object' && given !== null && !Array.isArray(given) ? (given as Record<string, unknown>) : {};
    const names = Object.keys(required);
    return { names: names.length > 0 ? names.join(' and ').slice(0, 100) : 'required', required };
  } catch {
    return null;
  }
}

interface InputRequiredResult {
  resultType: 'input_required';
  inputRequests?: Record<string, { method?: unknown; params?: unknown } | undefined>;
  requestState?: unknown;
}

function isInputRequired(result: unknown): result is InputRequiredResult {
  return typeof result === 'object' && result !== null && (result as { resultType?: unknown }).resultType === 'input_required';
}

/** A header value as 2026-07-28 sends it: plain when visible ASCII, else the `=?base64?...?=` form. */
function headerValue(value: string): string {
  return /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value) ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new RemoteMcpError('failed', `${what} is not valid JSON (${JSON.stringify(text.slice(0, 60))})`);
  }
}

/** The remote's result as it gave it, with the one shape check a tool result needs: content is a list. */
function asCallToolResult(result: unknown): CallToolResult {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) throw new RemoteMcpError('failed', 'its tools/call result is not an object');
  const content = (result as { content?: unknown }).content;
  if (content === undefined) return { ...(result as object), content: [] } as CallToolResult;
  if (!Array.isArray(content) || content.some((c) => typeof c !== 'object' || c === null || typeof (c as { type?: unknown }).type !== 'string')) {
    throw new RemoteMcpError('failed', 'its tools/call result has a content that is not a list of typed items');
  }
  return result as CallToolResult;
}

function serverSaid(text: string): string {
  const trimmed = text.trim().replace(/\s+/g, ' ').slice(0, 200);
  return trimmed ? ` (${trimmed})` : '';
}

/** Every failure as a RemoteMcpError; `opening` for failures before a session existed. */
function describe(err: unknown, opening = false): RemoteMcpError {
  if (err instanceof RemoteMcpError) return err;
  if (err instanceof BlockedDestinationError) return new RemoteMcpError('blocked_destination', err.message);
  if (err instanceof OutboundError) {
    if (err.kind === 'timeout') return new RemoteMcpError('timeout', 'it did not answer in time');
    if (err.kind === 'too_large') return new RemoteMcpError('failed', err.message);
    if (err.kind === 'network') return new RemoteMcpError(opening ? 'unreachable' : 'failed', `the connection failed (${err.code ?? 'network error'})`);
    return new RemoteMcpError('cancelled', 'the call was cancelled');
  }
  if (err instanceof SessionGone) return new RemoteMcpError('failed', 'it forgot the session twice in a row');
  return new RemoteMcpError('failed', 'the request failed unexpectedly');
}
