import { randomUUID } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import type { Logger } from '@patchbay/service-kit';
import type { RemoteReply } from '../domain/remote-mcp';
import { isObject, type JsonRpcId } from './json-rpc';

/** Where replicas tell each other about agents' answers and cancellations. */
export const MCP_RELAY_CHANNEL = 'patchbay:mcp-relay';

interface Waiting {
  keyId: string;
  resolve(reply: RemoteReply): void;
}

type RelayMessage = { t: 'reply'; k: string; id: string; reply: RemoteReply } | { t: 'cancel'; call: string };

/**
 * What crosses replicas while a tools/call runs on one of them. The endpoint is stateless, so the
 * POST carrying an agent's answer to a relayed request (sampling, elicitation), or its
 * `notifications/cancelled`, may reach any replica: it is handled at once when the call runs here,
 * and published on Redis otherwise, where the replica running the call picks it up.
 *
 * A relayed request's id is a fresh `patchbay-<uuid>`, and an answer is taken only from the same
 * access key that made the call. A call is known for cancellation by its access key, session (if
 * any), tool pack, registered user and the agent's own request id.
 */
export class McpRelay {
  private readonly waiting = new Map<string, Waiting>();
  private readonly running = new Map<string, AbortController>();
  private subscriber: Redis | null = null;

  constructor(
    private readonly redis: Redis | Cluster,
    private readonly logger: Logger,
  ) {}

  async subscribe(subscriber: Redis): Promise<void> {
    this.subscriber = subscriber;
    subscriber.on('message', (channel: string, text: string) => {
      if (channel !== MCP_RELAY_CHANNEL) return;
      let message: RelayMessage;
      try {
        message = JSON.parse(text) as RelayMessage;
      } catch {
        return;
      }
      if (message.t === 'reply') this.resolveLocal(message.k, message.id, message.reply);
      else if (message.t === 'cancel') this.running.get(message.call)?.abort();
    });
    await subscriber.subscribe(MCP_RELAY_CHANNEL);
  }

  /**
   * Sends a request to the agent (`write` puts it on the call's stream under the id it is given)
   * and waits for the agent's answer, until the call's signal aborts or `timeoutMs` passes.
   */
  ask(keyId: string, write: (id: string) => void, timeoutMs: number, signal?: AbortSignal): Promise<RemoteReply> {
    const id = `patchbay-${randomUUID()}`;
    return new Promise<RemoteReply>((resolve) => {
      const finish = (reply: RemoteReply) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.waiting.delete(id);
        resolve(reply);
      };
      const onAbort = () => finish({ error: { code: -32800, message: 'Request cancelled: the agent cancelled the tool call.' } });
      const timer = setTimeout(() => finish({ error: { code: -32001, message: 'Request timed out: the agent did not answer before the tool call timed out.' } }), Math.max(1, timeoutMs));
      timer.unref();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(id, { keyId, resolve: finish });
      write(id);
    });
  }

  /** An agent's JSON-RPC response, from whichever replica the POST reached. */
  answer(keyId: string, id: JsonRpcId, result: unknown, error: unknown): void {
    if (typeof id !== 'string' || !id.startsWith('patchbay-')) return;
    const reply: RemoteReply =
      error !== undefined
        ? { error: isObject(error) && typeof error.code === 'number' && typeof error.message === 'string' ? { code: error.code, message: error.message, ...(error.data !== undefined ? { data: error.data } : {}) } : { code: -32603, message: 'Internal error: the agent answered with a malformed error.' } }
        : { result: result ?? {} };
    if (this.resolveLocal(keyId, id, reply)) return;
    this.publish({ t: 'reply', k: keyId, id, reply });
  }

  /** Registers a running call so that its cancellation reaches it; returns the unregistration. */
  track(call: string, controller: AbortController): () => void {
    this.running.set(call, controller);
    return () => {
      if (this.running.get(call) === controller) this.running.delete(call);
    };
  }

  cancel(call: string): void {
    const local = this.running.get(call);
    if (local) local.abort();
    else this.publish({ t: 'cancel', call });
  }

  async close(): Promise<void> {
    this.subscriber?.disconnect();
    this.subscriber = null;
  }

  private resolveLocal(keyId: string, id: string, reply: RemoteReply): boolean {
    const waiting = this.waiting.get(id);
    if (!waiting || waiting.keyId !== keyId) return false;
    waiting.resolve(reply);
    return true;
  }

  private publish(message: RelayMessage): void {
    this.redis.publish(MCP_RELAY_CHANNEL, JSON.stringify(message)).catch((err: unknown) => {
      this.logger.warn({ error: err instanceof Error ? err.message : String(err) }, 'could not publish an MCP relay message');
    });
  }
}

/** The name a running call is known by for cancellation. */
export function callKey(keyId: string, sessionId: string | undefined, toolPackId: string, registeredUserId: string, requestId: JsonRpcId): string {
  return `${keyId}|${sessionId ?? ''}|${toolPackId}|${registeredUserId}|${typeof requestId}:${requestId}`;
}
