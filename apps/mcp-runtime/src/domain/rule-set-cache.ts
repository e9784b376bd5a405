import type { Environment } from '@patchbay/auth';
import { subscribeChannel, type ChannelSubscriptionOptions, type CloseChannelSubscription } from '@patchbay/queues';
import { Scanner, effectiveRules } from '@patchbay/security-scanner';
import type { Cluster, Redis } from 'ioredis';
import type { Db } from '../db';
import { toEngineOverride, toEngineRule } from './security-rules';

/** Rule writes on any replica publish `<organization_id>:<environment>` here; every replica drops its compiled rules. */
export const RULES_CHANGED_CHANNEL = 'patchbay:security-rules-changed';

/** Compiled rule sets kept at most; the oldest goes first beyond this. */
const MAX_ENTRIES = 10_000;

interface Entry {
  scanner: Promise<Scanner | null>;
  until: number;
}

export interface RuleSetCacheOptions {
  /** How long a compiled rule set is reused when no change message arrives. */
  ttlMs: number;
  now?: () => number;
}

/**
 * The compiled Scanner each tool pack runs, built from the organization's rules and the pack's
 * overrides, cached per (organization, environment, tool pack). A rule change on any replica reaches
 * every replica over Redis pub/sub and drops the organization's entries at once; while this replica is
 * not subscribed (Redis down, reconnecting) it does not trust its cache and reads the rules per call.
 */
export class RuleSetCache {
  private readonly entries = new Map<string, Entry>();
  private subscribed = false;
  private subscriber: Redis | null = null;
  private closeSubscription: CloseChannelSubscription | null = null;

  constructor(
    private readonly db: Db,
    private readonly options: RuleSetCacheOptions,
  ) {}

  /** The pack's Scanner, or null when no enabled rule applies (the call path then skips scanning). */
  async scannerFor(organizationId: string, environment: Environment, toolPackId: string): Promise<Scanner | null> {
    const key = `${organizationId}:${environment}:${toolPackId}`;
    const now = (this.options.now ?? Date.now)();
    const trusted = this.subscribed || this.subscriber === null;
    const hit = this.entries.get(key);
    if (hit && trusted && hit.until > now) return hit.scanner;
    const scanner = this.load(organizationId, environment, toolPackId);
    if (this.options.ttlMs > 0) {
      this.entries.delete(key);
      this.entries.set(key, { scanner, until: now + this.options.ttlMs });
      if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
      // A failed load is not kept: the next call tries again.
      scanner.catch(() => {
        if (this.entries.get(key)?.scanner === scanner) this.entries.delete(key);
      });
    }
    return scanner;
  }

  private async load(organizationId: string, environment: Environment, toolPackId: string): Promise<Scanner | null> {
    const rows = await this.db.securityRule.findMany({
      where: { organizationId, environment },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      include: { overrides: { where: { toolPackId } } },
    });
    const rules = effectiveRules(rows.map(toEngineRule), rows.flatMap((r) => r.overrides.map(toEngineOverride)));
    if (!rules.some((r) => r.enabled)) return null;
    // Stored rules were validated on write; the Scanner compiles them once for every call of the pack.
    return new Scanner(rules);
  }

  invalidate(organizationId: string, environment: Environment): void {
    const prefix = `${organizationId}:${environment}:`;
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }

  /** Listens for rule changes of every replica. `subscriber` must be a connection of its own (it enters subscribe mode). */
  async subscribe(subscriber: Redis, logger?: ChannelSubscriptionOptions['logger']): Promise<void> {
    this.subscriber = subscriber;
    this.closeSubscription = await subscribeChannel(subscriber, RULES_CHANGED_CHANNEL, parseRulesChanged, ({ organizationId, environment }) => this.invalidate(organizationId, environment), {
      label: 'security rules change',
      logger,
      // Messages sent while the connection was down are lost: forget everything and distrust until subscribed again.
      onLive: () => {
        this.entries.clear();
        this.subscribed = true;
      },
      onDown: () => {
        this.subscribed = false;
        this.entries.clear();
      },
    });
  }

  async close(): Promise<void> {
    this.subscribed = false;
    this.entries.clear();
    await this.closeSubscription?.();
    if (this.subscriber) this.subscriber.disconnect();
  }
}

/** `<organization_id>:<environment>`, as publishRulesChanged sends it; null for anything else. */
function parseRulesChanged(raw: string): { organizationId: string; environment: Environment } | null {
  const [organizationId, environment, ...rest] = raw.split(':');
  if (!organizationId || rest.length > 0 || (environment !== 'production' && environment !== 'test')) return null;
  return { organizationId, environment };
}

/** Announces a rule change to every replica (this one included). Never throws: a replica that misses it reloads after its TTL. */
export function publishRulesChanged(redis: Redis | Cluster, organizationId: string, environment: Environment): void {
  redis.publish(RULES_CHANGED_CHANNEL, `${organizationId}:${environment}`).catch(() => undefined);
}
