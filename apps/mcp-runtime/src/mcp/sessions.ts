import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import type { RemoteClientCapabilities } from '../domain/remote-mcp';
import { capabilityProfile } from '../domain/execute';
import { isLogLevel, type LogLevel } from './json-rpc';

/** What an MCP session of the endpoint knows: who opened it, and what the client said at initialize. */
export interface McpSession {
  /** The session id as the client sends it (Mcp-Session-Id). */
  id: string;
  keyId: string;
  toolPackId: string;
  registeredUserId: string;
  protocolVersion: string;
  /** The client's sampling and elicitation capabilities (normalized, see capabilityProfile). */
  capabilities: RemoteClientCapabilities;
}

/** What a passed-on `requestState` is bound to. */
export interface RequestStateBinding {
  keyId: string;
  toolPackId: string;
  registeredUserId: string;
  tool: string;
}

/** How long an agent may take to answer an `input_required` it was passed (a person may be filling a form). */
const REQUEST_STATE_TTL_MS = 30 * 60_000;

/** A session's log level is kept this long after its last logging/setLevel. */
const LOG_LEVEL_TTL_SECONDS = 7 * 24 * 3600;

/**
 * Sessions without server-side state: the Mcp-Session-Id is the session itself, signed, so any
 * replica can read it and the endpoint stays stateless. It holds the access key, tool pack and
 * registered user it was opened for (it is refused for any other), the negotiated protocol version,
 * the client's sampling and elicitation capabilities (which decide what a remote server's requests
 * may be relayed to the client) and a random nonce, as `v1.<payload>.<HMAC-SHA256>` in base64url
 * (visible ASCII, as the transport requires). The only state kept elsewhere is the level a client
 * set with logging/setLevel, in Redis, for seven days after it was set.
 *
 * The signing key is derived from PATCHBAY_SERVICE_TOKEN, which every replica shares; changing that
 * token ends every session (the clients get 404 and initialize again, as the transport prescribes).
 */
export class McpSessions {
  private readonly key: Buffer;

  constructor(
    serviceToken: string,
    private readonly redis: Redis | Cluster,
    private readonly keyPrefix = 'patchbay:mcp-session:',
  ) {
    this.key = createHmac('sha256', serviceToken).update('patchbay mcp-session v1').digest();
  }

  open(fields: Omit<McpSession, 'id'>): McpSession {
    const payload = Buffer.from(
      JSON.stringify({ k: fields.keyId, p: fields.toolPackId, u: fields.registeredUserId, v: fields.protocolVersion, c: fields.capabilities, n: randomBytes(12).toString('base64url') }),
    ).toString('base64url');
    const id = `v1.${payload}.${this.sign(payload)}`;
    return { id, ...fields };
  }

  /** The session a client named, or null when the id is not one of ours or belongs to another key, pack or user. */
  read(id: string, keyId: string, toolPackId: string, registeredUserId: string): McpSession | null {
    const [version, payload, signature] = id.split('.');
    if (version !== 'v1' || !payload || !signature) return null;
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
    let fields: { k?: unknown; p?: unknown; u?: unknown; v?: unknown; c?: unknown };
    try {
      fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof fields;
    } catch {
      return null;
    }
    if (fields.k !== keyId || fields.p !== toolPackId || fields.u !== registeredUserId || typeof fields.v !== 'string') return null;
    return { id, keyId, toolPackId, registeredUserId, protocolVersion: fields.v, capabilities: capabilityProfile((fields.c ?? {}) as RemoteClientCapabilities).capabilities };
  }

  /**
   * The `requestState` Patchbay gives a 2026-07-28 agent with an `input_required` result it passes on
   * from a remote server: the server's own state (opaque, echoed back to it), bound to the key, pack,
   * user and tool and to an expiry, signed like session ids (`s1.<payload>.<HMAC>`), so an agent can
   * neither forge nor move it.
   */
  sealRequestState(binding: RequestStateBinding, upstream: unknown): string {
    const payload = Buffer.from(JSON.stringify({ k: binding.keyId, p: binding.toolPackId, u: binding.registeredUserId, t: binding.tool, x: Date.now() + REQUEST_STATE_TTL_MS, s: upstream })).toString('base64url');
    return `s1.${payload}.${this.sign(`s1.${payload}`)}`;
  }

  /** The remote server's state inside one of ours (`{upstream}`), or null when it is not ours, belongs elsewhere or expired. */
  openRequestState(state: unknown, binding: RequestStateBinding): { upstream: unknown } | null {
    if (typeof state !== 'string' || state.length > 65_536) return null;
    const [version, payload, signature] = state.split('.');
    if (version !== 's1' || !payload || !signature) return null;
    const expected = Buffer.from(this.sign(`s1.${payload}`));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
    let fields: { k?: unknown; p?: unknown; u?: unknown; t?: unknown; x?: unknown; s?: unknown };
    try {
      fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof fields;
    } catch {
      return null;
    }
    if (fields.k !== binding.keyId || fields.p !== binding.toolPackId || fields.u !== binding.registeredUserId || fields.t !== binding.tool) return null;
    if (typeof fields.x !== 'number' || fields.x < Date.now()) return null;
    return { upstream: fields.s };
  }

  async setLogLevel(session: McpSession, level: LogLevel): Promise<void> {
    await this.redis.set(this.logLevelKey(session), level, 'EX', LOG_LEVEL_TTL_SECONDS);
  }

  /** The level the session's client set, or null when it set none (every message passes then). */
  async logLevel(session: McpSession): Promise<LogLevel | null> {
    const level = await this.redis.get(this.logLevelKey(session));
    return isLogLevel(level) ? level : null;
  }

  private logLevelKey(session: McpSession): string {
    return `${this.keyPrefix}${createHash('sha256').update(session.id).digest('base64url')}:log-level`;
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }
}
