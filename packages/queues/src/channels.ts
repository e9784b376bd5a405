import type { Cluster, Redis } from 'ioredis';
import { describeError, type QueueLogger } from './logger';
import type { Environment } from './payloads';

/**
 * Redis pub/sub channel on which connector-registry announces committed changes that make what other
 * services cached from it stale (mcp-runtime's tool lists and credentials). Pub/sub delivers to the
 * subscribers connected at the time and to no one else: a cache fed by it must bound its entries
 * with a TTL and must not trust them while its subscription is down (see subscribeRegistryChanges).
 */
export const REGISTRY_CHANGES_CHANNEL = 'patchbay:registry-changes';

export const REGISTRY_CHANGE_KINDS = ['tool_packs', 'credentials', 'registered_users', 'connectors'] as const;

/**
 * What changed:
 * - `tool_packs`: a tool pack was created, changed or deleted (its tools, or the auth scope, hence
 *   the credential, of one of its connectors).
 * - `registered_users`: a registered user was changed or deleted (its profile is part of a tool
 *   list; its company decides which SHARED credential it uses).
 * - `connectors`: a custom connector's tools changed, or it was deleted with its credentials.
 * - `credentials`: a stored credential was created, replaced, refreshed, retired (ERROR) or deleted,
 *   or the OAuth application credential it was issued through changed.
 */
export type RegistryChangeKind = (typeof REGISTRY_CHANGE_KINDS)[number];

/**
 * One change, in one organization and environment. The optional fields narrow it: when one is
 * absent, everything of that kind in the organization and environment may have changed. A
 * publisher sets `registered_user_id` on a credential change only when no other user's view of it
 * changed (an INDIVIDUAL credential); a SHARED or ORGANIZATION one leaves it out. Never carries
 * secrets: only identifiers.
 */
export interface RegistryChange {
  /** uuid */
  organization_id: string;
  environment: Environment;
  kind: RegistryChangeKind;
  /** The tool pack concerned (kind `tool_packs`). */
  tool_pack_id?: string;
  /** The registered user concerned (kinds `registered_users`, `credentials`). */
  registered_user_id?: string;
  /** The connector concerned (kinds `connectors`, `credentials`). */
  connector_slug?: string;
}

const NARROWING_FIELDS = ['tool_pack_id', 'registered_user_id', 'connector_slug'] as const;
const MAX_FIELD_LENGTH = 255;

function isKind(value: unknown): value is RegistryChangeKind {
  return typeof value === 'string' && (REGISTRY_CHANGE_KINDS as readonly string[]).includes(value);
}

function isField(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_FIELD_LENGTH;
}

/**
 * Reads one message off the channel; null when it is not a well-formed change (not JSON, a missing
 * or unknown organization, environment or kind, a narrowing field that is not a non-empty string).
 * Fields it does not know are dropped, so a newer publisher's additions do not break an older reader.
 */
export function parseRegistryChange(raw: string): RegistryChange | null {
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return null;
  const record = data as Record<string, unknown>;
  const { organization_id: organizationId, environment, kind } = record;
  if (!isField(organizationId) || (environment !== 'production' && environment !== 'test') || !isKind(kind)) return null;
  const change: RegistryChange = { organization_id: organizationId, environment, kind };
  for (const field of NARROWING_FIELDS) {
    const value = record[field];
    if (value === undefined || value === null) continue;
    if (!isField(value)) return null;
    change[field] = value;
  }
  return change;
}

/**
 * Announces a committed change to every subscriber connected now. Only the contract's fields are
 * sent, whatever else the object holds. Resolves with the number of subscribers that received it;
 * rejects when Redis does (the caller decides whether that matters: connector-registry logs it).
 */
export async function publishRegistryChange(redis: Redis | Cluster, change: RegistryChange): Promise<number> {
  const message: RegistryChange = { organization_id: change.organization_id, environment: change.environment, kind: change.kind };
  for (const field of NARROWING_FIELDS) {
    const value = change[field];
    if (value !== undefined) message[field] = value;
  }
  return redis.publish(REGISTRY_CHANGES_CHANNEL, JSON.stringify(message));
}

export interface ChannelSubscriptionOptions {
  /**
   * The subscription is confirmed on a connection: messages arrive from now on. Called once the
   * first subscription is confirmed and again after every reconnect. Whatever was published while
   * it was down is lost, so a cache must start over (drop everything) here.
   */
  onLive?: () => void;
  /** The connection dropped: messages may be missed from now on, so caches must not be trusted until onLive. */
  onDown?: () => void;
  /** Where ignored (malformed) messages and failed resubscriptions are reported. */
  logger?: Pick<QueueLogger, 'warn'>;
  /** What a message is, in those reports ('registry change', 'security rules change'). Default 'channel'. */
  label?: string;
}

/** The options of subscribeRegistryChanges. */
export type RegistryChangeSubscriptionOptions = ChannelSubscriptionOptions;

/** Stops listening: removes the listeners and unsubscribes. The connection stays the caller's to close. */
export type CloseChannelSubscription = () => Promise<void>;
export type CloseRegistryChangeSubscription = CloseChannelSubscription;

/**
 * Listens on one pub/sub channel that invalidates caches, on a dedicated connection (a subscribed
 * connection can do nothing else; give each subscription its own). `parse` turns a message into what
 * the handler takes, or null for a malformed one, which is ignored. Resolves once Redis has answered
 * the first SUBSCRIBE (onLive has run, unless the connection dropped meanwhile: then at the next
 * reconnect); rejects, leaving nothing attached, when the SUBSCRIBE fails.
 *
 * The subscription counts as live only between a confirmed SUBSCRIBE and the next time the connection
 * closes: ioredis resubscribes by itself after a reconnect, and this sends its own SUBSCRIBE on every
 * `ready` so it knows when that has taken effect (Redis answers in order, and re-subscribing is a no-op).
 */
export async function subscribeChannel<T>(
  subscriber: Redis,
  channelName: string,
  parse: (raw: string) => T | null,
  handler: (message: T) => void,
  options: ChannelSubscriptionOptions = {},
): Promise<CloseChannelSubscription> {
  let live = false;
  let closed = false;
  // Bumped whenever the connection closes, so a confirmation sent on an earlier connection does not count.
  let connection = 0;
  const label = options.label ?? 'channel';

  const onMessage = (channel: string, raw: string): void => {
    if (channel !== channelName || closed) return;
    const message = parse(raw);
    if (message === null) {
      options.logger?.warn({ channel, bytes: raw.length }, `ignored a malformed ${label} message`);
      return;
    }
    try {
      handler(message);
    } catch (err) {
      // Thrown inside ioredis's reply parser, it would break the connection; the handler's bug is reported instead.
      options.logger?.warn({ channel, error: describeError(err) }, `${label} handler failed`);
    }
  };
  const onClose = (): void => {
    connection += 1;
    if (!live) return;
    live = false;
    options.onDown?.();
  };
  const confirm = async (): Promise<void> => {
    const sentOn = connection;
    await subscriber.subscribe(channelName);
    if (closed || live || sentOn !== connection || subscriber.status !== 'ready') return;
    live = true;
    options.onLive?.();
  };
  const onReady = (): void => {
    confirm().catch((err: unknown) => {
      // The connection went away again; the next `ready` tries once more.
      options.logger?.warn({ channel: channelName, error: describeError(err) }, `${label} subscription not confirmed`);
    });
  };
  const detach = (): void => {
    closed = true;
    live = false;
    subscriber.off('message', onMessage);
    subscriber.off('close', onClose);
    subscriber.off('ready', onReady);
  };

  subscriber.on('message', onMessage);
  subscriber.on('close', onClose);
  subscriber.on('ready', onReady);
  try {
    await confirm();
  } catch (err) {
    detach();
    throw err;
  }

  return async () => {
    if (closed) return;
    detach();
    if (subscriber.status === 'ready') await subscriber.unsubscribe(channelName).catch(() => undefined);
  };
}

/** Listens for registry changes (see subscribeChannel); malformed messages are ignored. */
export function subscribeRegistryChanges(
  subscriber: Redis,
  handler: (change: RegistryChange) => void,
  options: ChannelSubscriptionOptions = {},
): Promise<CloseChannelSubscription> {
  return subscribeChannel(subscriber, REGISTRY_CHANGES_CHANNEL, parseRegistryChange, handler, { label: 'registry change', ...options });
}
