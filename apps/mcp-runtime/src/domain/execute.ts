import { withSpan } from '@patchbay/telemetry';
import { createHash } from 'node:crypto';
import type { KeyPrincipal } from '@patchbay/auth';
import { getBuiltinConnector, findTool, resolveBaseUrl, validateToolArguments, ToolError, type ToolLimits } from '@patchbay/connector-catalog';
import type { OutboundHttp } from '@patchbay/outbound';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PackTool, PackTools, RegistryClient } from './registry-client';
import { RemoteMcpClient, RemoteMcpError, type RemoteClientCapabilities, type RemoteNotification, type RemoteReply, type RemoteRequest } from './remote-mcp';

/** How a call ended, for its record. */
export type CallStatus = 'success' | 'error';

export interface CallOutcome {
  result: CallToolResult;
  status: CallStatus;
  /** Why it failed: a ToolError kind, invalid_input, credential_missing... */
  errorCode: string | null;
}

export interface ExecutorDeps {
  registry: RegistryClient;
  /** Refuses private addresses for user-supplied hosts unless local development allows them. */
  http: OutboundHttp;
  limits: ToolLimits;
  baseUrlOverrides: Record<string, string>;
}

function textResult(text: string, isError: boolean, structured?: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], ...(structured ? { structuredContent: structured } : {}), ...(isError ? { isError: true } : {}) };
}

function failure(code: string, message: string, structured?: Record<string, unknown>): CallOutcome {
  return { result: textResult(message, true, structured), status: 'error', errorCode: code };
}

/** Remote MCP clients kept at once (one per server and secret). */
const MAX_REMOTE_CLIENTS = 1_000;

/**
 * The agent's side of a call while it runs, when the agent can hear about it (it accepts an SSE
 * answer): progress and log notifications go to it, and requests of a remote server (sampling,
 * elicitation) are relayed to it when it declared the capability.
 */
export interface LiveCall {
  /** The agent's `_meta.progressToken`; progress is sent only when it gave one. */
  progressToken?: string | number;
  /** Sends a notification about this call to the agent. */
  notify(notification: RemoteNotification): void;
  /** Relays a server's request to the agent and waits for its answer; absent when the agent cannot take one. */
  request?(request: RemoteRequest): Promise<RemoteReply>;
  /** The agent's sampling, elicitation and roots capabilities, declared to remote servers on its behalf. */
  capabilities: RemoteClientCapabilities;
  /** The log level the agent asked for on this request, null when it asked for none, absent when not known yet (a session's). */
  logLevel?: string | null;
}

/** What a call knows of the request it came in. */
export interface CallContext {
  /** The agent's public URL, for magic links (built only when one is needed). */
  /** The public origin as a trusted load balancer named it, or null (the registry then uses its configuration). */
  publicBaseUrl: () => string | null;
  /** Aborted when the agent cancels the call (notifications/cancelled), streamed or not. */
  signal?: AbortSignal;
  live?: LiveCall;
  /** 2026-07-28 agent: a remote server's `input_required` result is passed back to it rather than answered here. */
  passInputRequired?: boolean;
  /** 2026-07-28 agent's retry of such a call: its answers and the remote's state, sent on to the server. */
  resume?: { inputResponses: Record<string, unknown>; requestState?: unknown };
}

/**
 * Runs one tools/call for a (tool pack, registered user) pair. Every failure a model can act on comes
 * back as an `isError` result; credentials exist only inside the outbound request.
 */
export class ToolExecutor {
  /** One client per remote server and secret, so its session and connections are reused. */
  private readonly remotes = new Map<string, RemoteMcpClient>();

  constructor(private readonly deps: ExecutorDeps) {}

  async call(principal: KeyPrincipal, pack: PackTools, tool: PackTool, args: unknown, context: CallContext): Promise<CallOutcome> {
    return withSpan('ToolExecutor.call', async (span) => {
      span.setAttribute('patchbay.tool', tool.fully_qualified_name);
      const outcome = await this.run(principal, pack, tool, args, context);
      if (outcome.errorCode) span.setAttribute('patchbay.error_code', outcome.errorCode);
      return outcome;
    });
  }

  private async run(principal: KeyPrincipal, pack: PackTools, tool: PackTool, args: unknown, context: CallContext): Promise<CallOutcome> {
    const problems = validateToolArguments(tool, args);
    if (problems.length > 0) {
      return failure('invalid_input', `Invalid arguments for ${tool.fully_qualified_name}: ${problems.join('; ')}. Fix them and call the tool again.`);
    }
    return tool.connector_kind === 'builtin' ? this.callBuiltin(principal, pack, tool, args as { input: unknown }, context) : this.callCustom(pack, tool, args, context);
  }

  private async callBuiltin(principal: KeyPrincipal, pack: PackTools, tool: PackTool, args: { input: unknown }, context: CallContext): Promise<CallOutcome> {
    const connector = getBuiltinConnector(tool.connector_slug);
    const definition = connector ? findTool(connector, tool.name) : undefined;
    if (!connector || !definition) return failure('provider_error', `${tool.fully_qualified_name} is no longer available.`);
    const lookup = await this.deps.registry.credential(principal, pack.tool_pack.id, pack.registered_user.id, connector.slug);
    if (!lookup.ok) {
      if (lookup.code === 'unavailable') return failure('credential_unavailable', lookup.detail);
      const why = lookup.code === 'credential_invalid' ? `The ${connector.name} connection of this user stopped working (${lookup.detail})` : `This user has not connected ${connector.name} yet`;
      // A fresh magic link, so the agent can ask the user to connect and then retry (as Merge does).
      const link = await this.deps.registry.magicLink(principal, pack.registered_user.id, connector.slug, tool.auth_scope, context.publicBaseUrl());
      const ask = link ? ` Ask the user to open ${link.magic_link_url} to connect ${connector.name} (the link expires at ${link.expires_at}), then call the tool again.` : ` Ask the user to connect ${connector.name}, then call the tool again.`;
      return failure(lookup.code, `${why}.${ask}`, { error: lookup.code, connector: connector.slug, magic_link_url: link?.magic_link_url ?? null, expires_at: link?.expires_at ?? null });
    }
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.deps.limits.timeoutMs);
    const live = context.live;
    const cancel = () => controller.abort();
    context.signal?.addEventListener('abort', cancel, { once: true });
    const progress = live?.progressToken !== undefined ? (value: number, total: number, message: string) => live.notify({ method: 'notifications/progress', params: { progressToken: live.progressToken, progress: value, total, message } }) : undefined;
    progress?.(0, 1, `Calling ${connector.name}`);
    try {
      // The outbound call to the provider: its HTTP client span is a child of this one.
      const output = await withSpan('ToolExecutor.callProvider', (span) => {
        span.setAttribute('patchbay.connector', connector.slug);
        return definition.execute(
          {
            credential: lookup.credential,
            baseUrl: resolveBaseUrl(connector, lookup.credential, this.deps.baseUrlOverrides),
            signal: controller.signal,
            http: this.deps.http,
            limits: this.deps.limits,
          },
          args.input as never,
        );
      });
      const structured = output !== null && typeof output === 'object' && !Array.isArray(output) ? (output as Record<string, unknown>) : { result: output };
      progress?.(1, 1, `${connector.name} answered`);
      return { result: textResult(JSON.stringify(output), false, structured), status: 'success', errorCode: null };
    } catch (err) {
      if (err instanceof ToolError) {
        // The provider refused the stored credential: the next call asks the registry again.
        if (err.kind === 'credential_rejected') this.deps.registry.forgetCredential(principal, pack.tool_pack.id, pack.registered_user.id, connector.slug);
        const retry = err.retryAfterSeconds !== undefined ? ` (retry after ${err.retryAfterSeconds} s)` : '';
        return failure(err.kind, `${err.message}${err.message.includes('retry after') ? '' : retry}`);
      }
      if (context.signal?.aborted) return failure('cancelled', `The call to ${connector.name} was cancelled by the agent.`);
      if (controller.signal.aborted) return failure('timeout', `${connector.name} did not answer within ${Math.round(this.deps.limits.timeoutMs / 1000)} s; retry later.`);
      return failure('provider_error', `The call to ${connector.name} failed unexpectedly; retry later.`);
    } finally {
      clearTimeout(timer);
      context.signal?.removeEventListener('abort', cancel);
    }
  }

  /** A custom connector's tool goes to its remote MCP server, with its secret, over a reused session. */
  private async callCustom(pack: PackTools, tool: PackTool, args: unknown, context: CallContext): Promise<CallOutcome> {
    const server = pack.custom_servers[tool.connector_slug];
    if (!server) return failure('provider_error', `${tool.fully_qualified_name} is no longer available.`);
    const live = context.live;
    try {
      const base = live ? { progressToken: live.progressToken, onNotification: live.notify, onRequest: live.request, logLevel: live.logLevel, signal: context.signal } : context.signal ? { signal: context.signal } : undefined;
      const hooks = context.passInputRequired || context.resume ? { ...base, passInputRequired: context.passInputRequired, resume: context.resume } : base;
      const result = await this.remoteClient(server.url, server.secret, live?.capabilities).callTool(tool.name, (args ?? {}) as Record<string, unknown>, hooks);
      return { result, status: result.isError ? 'error' : 'success', errorCode: result.isError ? 'remote_error' : null };
    } catch (err) {
      if (!(err instanceof RemoteMcpError)) throw err;
      const server = `The MCP server of ${tool.connector_name}`;
      switch (err.kind) {
        case 'unreachable':
          return failure('provider_error', `${server} could not be reached (${err.message}); retry later.`);
        case 'blocked_destination':
          return failure('blocked_destination', `${server} is at an address Patchbay may not call: ${err.message}`);
        case 'timeout':
          return failure('timeout', `${server} did not answer within ${Math.round(this.deps.limits.timeoutMs / 1000)} s; retry later.`);
        case 'cancelled':
          return failure('cancelled', `The call to ${server.charAt(0).toLowerCase()}${server.slice(1)} was cancelled by the agent.`);
        case 'input_required':
          return failure('input_required', `${server} could not finish: ${err.message}.`, err.requiredCapabilities ? { error: 'missing_client_capability', required_capabilities: err.requiredCapabilities } : undefined);
        default:
          return failure('provider_error', `${server} failed: ${err.message}; retry later.`);
      }
    }
  }

  /**
   * The client of a server for a secret and a set of agent capabilities: each set has its own
   * session, since a server learns the client's capabilities at initialize.
   */
  private remoteClient(url: string, secret: string | null, capabilities: RemoteClientCapabilities = {}): RemoteMcpClient {
    const profile = capabilityProfile(capabilities);
    const key = `${url}#${createHash('sha256').update(secret ?? '').digest('hex')}#${profile.key}`;
    let client = this.remotes.get(key);
    if (!client) {
      // Old secrets and servers leave the map, oldest first, rather than pile up.
      if (this.remotes.size >= MAX_REMOTE_CLIENTS) {
        const oldest = this.remotes.keys().next().value as string;
        void this.remotes.get(oldest)?.close();
        this.remotes.delete(oldest);
      }
      client = new RemoteMcpClient({ url, secret, http: this.deps.http, timeoutMs: this.deps.limits.timeoutMs, maxResponseBytes: this.deps.limits.maxResponseBytes, capabilities: profile.capabilities });
      this.remotes.set(key, client);
    }
    return client;
  }

  async close(): Promise<void> {
    const clients = [...this.remotes.values()];
    this.remotes.clear();
    await Promise.all(clients.map((c) => c.close()));
  }
}

/**
 * The part of an agent's capabilities a remote server may act on: sampling (with its `context` and
 * `tools` options), elicitation (its `form` and `url` modes) and roots. Normalized, so the few distinct sets
 * give few sessions per server.
 */
export function capabilityProfile(capabilities: RemoteClientCapabilities): { key: string; capabilities: RemoteClientCapabilities } {
  const pick = (value: unknown, names: string[]): Record<string, unknown> | undefined => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    const picked: Record<string, unknown> = {};
    for (const name of names) if (typeof (value as Record<string, unknown>)[name] === 'object' && (value as Record<string, unknown>)[name] !== null) picked[name] = {};
    return picked;
  };
  const sampling = pick(capabilities.sampling, ['context', 'tools']);
  const elicitation = pick(capabilities.elicitation, ['form', 'url']);
  // Roots without listChanged: Patchbay sends no roots/list_changed of its own (the agent's list is asked for each time).
  const roots = pick(capabilities.roots, []);
  const normalized: RemoteClientCapabilities = { ...(sampling ? { sampling } : {}), ...(elicitation ? { elicitation } : {}), ...(roots ? { roots } : {}) };
  return { key: JSON.stringify(normalized), capabilities: normalized };
}
