import { createHash } from 'node:crypto';
import type { KeyPrincipal } from '@patchbay/auth';
import { getBuiltinConnector, findTool, resolveBaseUrl, validateToolArguments, ToolError, type ToolLimits } from '@patchbay/connector-catalog';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PackTool, PackTools, RegistryClient } from './registry-client';

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
  fetch: typeof fetch;
  limits: ToolLimits;
  baseUrlOverrides: Record<string, string>;
}

function textResult(text: string, isError: boolean, structured?: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], ...(structured ? { structuredContent: structured } : {}), ...(isError ? { isError: true } : {}) };
}

function failure(code: string, message: string, structured?: Record<string, unknown>): CallOutcome {
  return { result: textResult(message, true, structured), status: 'error', errorCode: code };
}

/** What a call knows of the request it came in (the agent's public URL, for magic links). */
export interface CallContext {
  publicBaseUrl: string;
}

/**
 * Runs one tools/call for a (tool pack, registered user) pair. Every failure a model can act on comes
 * back as an `isError` result; credentials exist only inside the outbound request.
 */
export class ToolExecutor {
  private readonly remotes = new Map<string, Promise<Client>>();

  constructor(private readonly deps: ExecutorDeps) {}

  async call(principal: KeyPrincipal, pack: PackTools, tool: PackTool, args: unknown, context: CallContext): Promise<CallOutcome> {
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
      const output = await definition.execute(
        {
          credential: lookup.credential,
          baseUrl: resolveBaseUrl(connector, lookup.credential, this.deps.baseUrlOverrides),
          signal: controller.signal,
          fetch: this.deps.fetch,
          limits: this.deps.limits,
        },
        args.input as never,
      );
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

  /** A custom connector's tool goes to its remote MCP server, with its secret, over a reused client. */
  private async callCustom(pack: PackTools, tool: PackTool, args: unknown): Promise<CallOutcome> {
    const server = pack.custom_servers[tool.connector_slug];
    if (!server) return failure('provider_error', `${tool.fully_qualified_name} is no longer available.`);
    const key = `${server.url}#${createHash('sha256').update(server.secret ?? '').digest('hex')}`;
    for (let attempt = 0; attempt < 2; attempt += 1) {
      let client: Client;
      try {
        client = await this.remoteClient(key, server.url, server.secret);
      } catch {
        this.remotes.delete(key);
        return failure('provider_error', `The MCP server of ${tool.connector_name} could not be reached; retry later.`);
      }
      try {
        const result = (await client.callTool({ name: tool.name, arguments: (args ?? {}) as Record<string, unknown> }, undefined, { timeout: this.deps.limits.timeoutMs })) as CallToolResult;
        return { result, status: result.isError ? 'error' : 'success', errorCode: result.isError ? 'remote_error' : null };
      } catch (err) {
        // A connection the server dropped: open a new one once.
        this.remotes.delete(key);
        await client.close().catch(() => undefined);
        const message = err instanceof Error ? err.message : '';
        if (attempt === 1 || /timed out|timeout/i.test(message)) {
          return failure(/timed out|timeout/i.test(message) ? 'timeout' : 'provider_error', `The MCP server of ${tool.connector_name} failed: ${message.slice(0, 200) || 'no answer'}; retry later.`);
        }
      }
    }
    return failure('provider_error', `The MCP server of ${tool.connector_name} failed; retry later.`);
  }

  /**
   * The SDK's client transport hands every request the same long-lived abort signal. undici reads the
   * listeners of a request's signal on each request (getEventListeners, which copies them); with one
   * signal shared by every call in flight that was 3% of the runtime's CPU on the custom path in
   * `pnpm bench mcp --profile`. Each request gets a signal of its own, aborted with the shared one.
   */
  private readonly perRequestSignalFetch: typeof fetch = async (input, init) => {
    const shared = init?.signal;
    if (!shared) return this.deps.fetch(input, init);
    const own = new AbortController();
    const abort = () => own.abort(shared.reason);
    if (shared.aborted) own.abort(shared.reason);
    else shared.addEventListener('abort', abort, { once: true });
    try {
      return await this.deps.fetch(input, { ...init, signal: own.signal });
    } finally {
      shared.removeEventListener('abort', abort);
    }
  };

  private remoteClient(key: string, url: string, secret: string | null): Promise<Client> {
    let pending = this.remotes.get(key);
    if (!pending) {
      pending = (async () => {
        const client = new Client({ name: 'patchbay-mcp-runtime', version: '1.0.0' });
        const transport = new StreamableHTTPClientTransport(new URL(url), {
          requestInit: secret ? { headers: { authorization: `Bearer ${secret}` } } : undefined,
          fetch: this.perRequestSignalFetch,
        });
        await client.connect(transport, { timeout: this.deps.limits.timeoutMs });
        return client;
      })();
      this.remotes.set(key, pending);
    }
    return pending;
  }

  async close(): Promise<void> {
    const clients = await Promise.allSettled([...this.remotes.values()]);
    this.remotes.clear();
    await Promise.all(clients.map((c) => (c.status === 'fulfilled' ? c.value.close().catch(() => undefined) : undefined)));
  }
}
