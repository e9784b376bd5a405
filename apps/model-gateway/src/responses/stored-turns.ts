import { renderResponse, WireError, type CanonicalResponse, type ChatSurface } from '@patchbay/model-wire';
import type { Logger } from '@patchbay/service-kit';
import type { IncomingHttpHeaders } from 'node:http';
import type { Catalog } from '../catalog/catalog';
import type { Caller } from '../keys/callers';
import type { PreparedTurn, TurnKeeper } from '../model/model-request';
import type { ResponseStore, StoredTurn, StoreScope } from './response-store';

type Json = Record<string, unknown>;
type StoringSurface = StoredTurn['surface'];

/**
 * Whether the organization's response store is on for a surface. The organization setting
 * (`gateway.responseStore`, admin CLI `org update --response-store on|off|default`) wins when set;
 * unset, each surface does what its clients expect: the OpenAI-compatible surface stores as OpenAI
 * does (its SDKs, the `ai` SDK first, refer to earlier turns with item references), the native
 * surface stores nothing (the product's default: history is sent in `input`).
 */
export function storeEnabled(surface: StoringSurface, caller: Caller): boolean {
  const setting = caller.org.settings.gateway?.responseStore ?? null;
  if (setting !== null) return setting;
  return surface === 'openai-responses';
}

/** Whether this request asks to be kept: `store: true` on the native surface, anything but `store: false` on OpenAI's. */
function storeRequested(surface: StoringSurface, body: Json): boolean {
  return surface === 'native-responses' ? body.store === true : body.store !== false;
}

export function scopeOf(caller: Caller): StoreScope {
  return { organizationId: caller.key.organizationId, environment: caller.key.environment };
}

/** `resp_<32 hex>`, the gateway's response ids; item ids are `msg_|fc_|rs_<same 32 hex>_<n>` (model-wire's renderers). */
const ITEM_ID = /^(?:msg|fc|rs)_([0-9a-f]{32})(?:_\d+)?$/;

/** Vendor-bound items: a reasoning item's encrypted content or a signed thinking block only its vendor can read back. */
function holdsVendorState(items: unknown[]): boolean {
  return items.some((item) => {
    if (typeof item !== 'object' || item === null) return false;
    const it = item as Json;
    if (it.type === 'reasoning' && typeof it.encrypted_content === 'string') return true;
    return Array.isArray(it.content) && it.content.some((b) => typeof b === 'object' && b !== null && ((b as Json).type === 'redacted_thinking' || typeof (b as Json).signature === 'string'));
  });
}

/** The answer's output items as input items of the same surface (a later turn's history). */
function outputAsInput(turn: StoredTurn): unknown[] {
  const output = Array.isArray(turn.response.output) ? (turn.response.output as Json[]) : [];
  if (turn.surface === 'openai-responses') return output;
  // Native output is one assistant message of content blocks; as input it is {role, content}
  // (redacted thinking has no native input form and is left out).
  return output.map((item) => ({ role: 'assistant', content: (Array.isArray(item.content) ? (item.content as Json[]) : []).filter((b) => b.type !== 'redacted_thinking') }));
}

function inputItems(input: unknown): unknown[] {
  if (typeof input === 'string') return input === '' ? [] : [{ role: 'user', content: input }];
  return Array.isArray(input) ? input : [];
}

function unsupported(message: string): WireError {
  return WireError.invalid('previous_response_id_unsupported', message, 'previous_response_id');
}

/**
 * The response store's side of the request pipeline (issue 27 §3): resolves `previous_response_id`
 * and `item_reference` items against the stored turns of the caller's organization and environment,
 * and keeps the answer when the request is stored.
 */
export class StoredTurns implements TurnKeeper {
  constructor(
    private readonly store: ResponseStore,
    private readonly catalog: Catalog,
    private readonly logger: Logger,
  ) {}

  async prepare(surface: ChatSurface, caller: Caller, _headers: IncomingHttpHeaders, body: unknown): Promise<PreparedTurn | null> {
    if (surface !== 'native-responses' && surface !== 'openai-responses') return null;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
    const request = { ...(body as Json) };
    // conversation and a non-string previous_response_id are the surface parser's to refuse.
    if (request.conversation !== undefined && request.conversation !== null) return null;
    const previousId = request.previous_response_id;
    if (previousId !== undefined && previousId !== null && typeof previousId !== 'string') return null;

    const enabled = storeEnabled(surface, caller);
    const scope = scopeOf(caller);
    let history: unknown[] = [];
    let previous: StoredTurn | null = null;
    if (typeof previousId === 'string') {
      if (!enabled) {
        throw unsupported(`previous_response_id "${previousId.slice(0, 64)}" cannot be resumed: the organization's response store is off${surface === 'native-responses' ? ' (turn it on with the organization setting response store, then send "store": true)' : ''}; send the whole conversation in "input".`);
      }
      previous = await this.store.get(scope, previousId);
      if (!previous) {
        throw unsupported(`previous_response_id "${previousId.slice(0, 64)}" cannot be resumed: no stored response has this id in this organization and environment (never stored, deleted, or expired an hour after its last use); send the whole conversation in "input".`);
      }
      if (previous.surface !== surface) {
        throw unsupported(`previous_response_id "${previousId}" was stored on ${previous.surface === 'native-responses' ? 'POST /v1/responses' : 'POST /v1/openai/responses'}; continue it on that surface, whose items it holds.`);
      }
      history = [...previous.input, ...outputAsInput(previous)];
      this.continueOnVendor(request, previous, history);
      delete request.previous_response_id;
    }

    let input = inputItems(request.input);
    if (surface === 'openai-responses' && input.some(isItemReference)) input = await this.resolveReferences(input, scope, enabled);
    const whole = [...history, ...input];
    if (previous || input !== request.input) request.input = whole;

    const keep = enabled && storeRequested(surface, request);
    const echo: Json = surface === 'openai-responses' ? { store: keep, previous_response_id: typeof previousId === 'string' ? previousId : null } : {};
    return {
      body: request,
      echo,
      keep: keep
        ? (answer) => this.keep(caller, surface, whole, typeof previousId === 'string' ? previousId : null, typeof request.instructions === 'string' ? request.instructions : null, answer)
        : null,
    };
  }

  /**
   * A stored turn continues on the vendor family that answered it (its reasoning and signed thinking
   * only that vendor reads back): pinned when the request names no vendor itself and its model runs
   * there; refused when the model does not run there and the history holds such vendor state.
   */
  private continueOnVendor(request: Json, previous: StoredTurn, history: unknown[]): void {
    const pinned = request.vendor !== undefined || request.vendors !== undefined || request.priority_order !== undefined || request.routing_policy_id !== undefined;
    if (pinned) return;
    let routes: string[] | null = null;
    try {
      routes = this.catalog.resolve(typeof request.model === 'string' ? request.model : null).routes.map((r) => r.vendor);
    } catch {
      return; // unknown or routed model: the pipeline answers that itself
    }
    if (routes.includes(previous.vendor)) request.vendor = previous.vendor;
    else if (holdsVendorState(history)) {
      throw unsupported(`previous_response_id "${previous.id}" was answered by ${previous.vendor}, whose reasoning it carries; continue with a model ${previous.vendor} serves (it was ${previous.model}).`);
    }
  }

  private async resolveReferences(input: unknown[], scope: StoreScope, enabled: boolean): Promise<unknown[]> {
    const turns = new Map<string, StoredTurn | null>();
    const out: unknown[] = [];
    for (const [i, item] of input.entries()) {
      if (!isItemReference(item)) {
        out.push(item);
        continue;
      }
      const id = typeof item.id === 'string' ? item.id : '';
      const at = `input[${i}]`;
      if (!enabled) throw WireError.invalid('invalid_input_item', `${at}: item references need the response store, which this organization turned off; send the item itself.`, at);
      const match = ITEM_ID.exec(id);
      const responseId = match ? `resp_${match[1]}` : null;
      if (responseId && !turns.has(responseId)) turns.set(responseId, await this.store.get(scope, responseId));
      const turn = responseId ? turns.get(responseId) : null;
      const found = turn ? [...(turn.response.output as Json[]), ...(turn.input as Json[])].find((it) => typeof it === 'object' && it !== null && it.id === id) : undefined;
      if (!found) {
        throw WireError.invalid('invalid_input_item', `${at}: item "${id.slice(0, 80)}" is not stored (not a stored response's item, deleted, or expired an hour after its last use); send the item itself.`, at);
      }
      out.push(found);
    }
    return out;
  }

  private async keep(caller: Caller, surface: StoringSurface, input: unknown[], previousId: string | null, instructions: string | null, answer: { response: CanonicalResponse; costUsd: number }): Promise<void> {
    const rendered = renderResponse(surface, answer.response, { costUsd: answer.costUsd }, { instructions }) as Json;
    if (surface === 'openai-responses') Object.assign(rendered, { store: true, previous_response_id: previousId });
    const turn: StoredTurn = {
      id: answer.response.id,
      surface,
      model: answer.response.model,
      vendor: answer.response.vendor,
      previousResponseId: previousId,
      createdAt: answer.response.created,
      input,
      response: rendered,
    };
    try {
      await this.store.save(scopeOf(caller), caller.key.hash, turn);
    } catch (err) {
      // The client still gets its answer; a later turn naming it is refused as not stored.
      this.logger.warn({ err: { message: (err as Error).message }, response_id: turn.id }, 'a response to store was not stored');
    }
  }
}

function isItemReference(item: unknown): item is Json {
  return typeof item === 'object' && item !== null && (item as Json).type === 'item_reference';
}
