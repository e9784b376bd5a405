import { withSpan } from '@patchbay/telemetry';
import { createHash } from 'node:crypto';
import type { KeyPrincipal } from '@patchbay/auth';
import { getBuiltinConnector, findTool, resolveBaseUrl, validateToolArguments, ToolError, type ToolLimits } from '@patchbay/connector-catalog';
import type { OutboundHttp } from '@patchbay/outbound';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PackTool, PackTools, RegistryClient } from './registry-client';
import { RemoteMcpClient, RemoteMcpError } from './remote-mcp';

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

/** What a call knows of the request it came in (the agent's public URL, for magic links). */
export interface CallContext {
  publicBaseUrl: string;
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
    return tool.connector_kind === 'builtin' ? this.callBuiltin(principal, pack, tool, args as { input: unknown }, context) : this.callCustom(pack, tool, args);
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
      const link = await this.deps.registry.magicLink(principal, pack.registered_user.id, connector.slug, tool.auth_scope, context.publicBaseUrl);
      const ask = link ? ` Ask the user to open ${link.magic_link_url} to connect ${connector.name} (the link expires at ${link.expires_at}), then call the tool again.` : ` Ask the user to connect ${connector.name}, then call the tool again.`;
      return failure(lookup.code, `${why}.${ask}`, { error: lookup.code, connector: connector.slug, magic_link_url: link?.magic_link_url ?? null, expires_at: link?.expires_at ?? null });
    }
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.deps.limits.timeoutMs);
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
      return { result: textResult(JSON.stringify(output), false, structured), status: 'success', errorCode: null };
    } catch (err) {
      if (err instanceof ToolError) {
        // The provider refused the stored credential: the next call asks the registry again.
        if (err.kind === 'credential_rejected') this.deps.registry.forgetCredential(principal, pack.tool_pack.id, pack.registered_user.id, connector.slug);
        const retry = err.retryAfterSeconds !== undefined ? ` (retry after ${err.retryAfterSeconds} s)` : '';
        return failure(err.kind, `${err.message}${err.message.includes('retry after') ? '' : retry}`);
      }
      if (controller.signal.aborted) return failure('timeout', `${connector.name} did not answer within ${Math.round(this.deps.limits.timeoutMs / 1000)} s; retry later.`);
      return failure('provider_error', `The call to ${connector.name} failed unexpectedly; retry later.`);
    } finally {
      clearTimeout(timer);
    }
  }

  /** A custom connector's tool goes to its remote MCP server, with its secret, over a reused session. */
  private async callCustom(pack: PackTools, tool: PackTool, args: unknown): Promise<CallOutcome> {
    const server = pack.custom_servers[tool.connector_slug];
    if (!server) return failure('provider_error', `${tool.fully_qualified_name} is no longer available.`);
    try {
      const result = await this.remoteClient(server.url, server.secret).callTool(tool.name, (args ?? {}) as Record<string, unknown>);
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
        default:
          return failure('provider_error', `${server} failed: ${err.message}; retry later.`);
      }
    }
  }

  private remoteClient(url: string, secret: string | null): RemoteMcpClient {
    const key = `${url}#${createHash('sha256').update(secret ?? '').digest('hex')}`;
    let client = this.remotes.get(key);
    if (!client) {
      // Old secrets and servers leave the map, oldest first, rather than pile up.
      if (this.remotes.size >= MAX_REMOTE_CLIENTS) {
        const oldest = this.remotes.keys().next().value as string;
        void this.remotes.get(oldest)?.close();
        this.remotes.delete(oldest);
      }
      client = new RemoteMcpClient({ url, secret, http: this.deps.http, timeoutMs: this.deps.limits.timeoutMs, maxResponseBytes: this.deps.limits.maxResponseBytes });
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
