import { SERVICE_TOKEN_HEADER } from '@patchbay/auth';

/**
 * An organization's own audit/tool-call retention: the spec has one setting for both, kept by
 * access-keys-and-audit as the organization's `audit_retention_days` (`patchbay org update
 * --audit-retention-days`). Its wire shape on GET /internal/v1/organizations/retention.
 */
export interface OrganizationRetention {
  organization_id: string;
  retention_days: number;
}

/** Where the retention sweep learns the organizations' own retention. */
export interface OrganizationRetentionSource {
  organizations(): Promise<readonly OrganizationRetention[]>;
}

export interface OrganizationRetentionClientOptions {
  /** access-keys-and-audit (ACCESS_KEYS_URL). */
  baseUrl: string;
  serviceToken: string;
  /** How long a fetched list is reused. Default 5 minutes: a changed retention applies at the next sweep after that. */
  cacheTtlMs?: number;
  timeoutMs?: number;
  fetch?: typeof fetch;
  now?: () => number;
}

export const RETENTION_PATH = '/internal/v1/organizations/retention';

/**
 * Asks access-keys-and-audit (which owns organizations; this service never reads its tables) for the
 * organizations with a retention of their own, over its internal route with the service token, and
 * keeps the answer for `cacheTtlMs`. When the service cannot answer, the last answer is used however
 * old: the sweep then runs on what it knew. Before any answer it throws, and the sweep waits for its
 * next run rather than apply the default to an organization that chose otherwise.
 */
export class OrganizationRetentionClient implements OrganizationRetentionSource {
  private cached: { at: number; organizations: readonly OrganizationRetention[] } | null = null;
  private readonly fetch: typeof fetch;
  private readonly now: () => number;

  constructor(private readonly options: OrganizationRetentionClientOptions) {
    this.fetch = options.fetch ?? globalThis.fetch;
    this.now = options.now ?? Date.now;
  }

  async organizations(): Promise<readonly OrganizationRetention[]> {
    if (this.cached && this.now() - this.cached.at < (this.options.cacheTtlMs ?? 300_000)) return this.cached.organizations;
    try {
      const res = await this.fetch(new URL(RETENTION_PATH, this.options.baseUrl), {
        headers: { [SERVICE_TOKEN_HEADER]: this.options.serviceToken },
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 5000),
      });
      if (!res.ok) throw new Error(`access-keys-and-audit answered ${res.status}`);
      const body = (await res.json()) as { organizations?: unknown };
      if (!Array.isArray(body.organizations) || !body.organizations.every(isRetention)) throw new Error('access-keys-and-audit sent an organization retention list of an unknown shape');
      this.cached = { at: this.now(), organizations: body.organizations };
      return body.organizations;
    } catch (err) {
      if (this.cached) return this.cached.organizations;
      throw new Error(`the organizations' own retention is unknown: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

function isRetention(value: unknown): value is OrganizationRetention {
  const v = value as Partial<OrganizationRetention> | null;
  return typeof v === 'object' && v !== null && typeof v.organization_id === 'string' && Number.isSafeInteger(v.retention_days) && (v.retention_days as number) >= 1;
}
