import type { SecretBox } from '@patchbay/secrets';
import type { SqlPool } from '../db';

/** A stored turn expires this long after it was last used (created, retrieved or resumed). */
export const STORED_RESPONSE_TTL_MS = 60 * 60 * 1000;
/** The store's bound per organization (both environments): past it the least recently used turns go first. */
export const DEFAULT_MAX_STORED_PER_ORGANIZATION = 10_000;

type Json = Record<string, unknown>;

/** What one stored turn holds (sealed as one JSON document: prompts and answers are customer data). */
export interface StoredTurn {
  id: string;
  /** The surface that answered it: its items are in that surface's wire format. */
  surface: 'native-responses' | 'openai-responses';
  model: string;
  vendor: string;
  previousResponseId: string | null;
  /** Unix seconds. */
  createdAt: number;
  /** The whole conversation up to this turn's answer, as the surface's input items (earlier turns resolved). */
  input: unknown[];
  /** The response body as the surface rendered it (its `output` items are what a later turn refers to). */
  response: Json;
}

export interface StoreScope {
  organizationId: string;
  environment: 'production' | 'test';
}

interface Row {
  sealed: string;
}

/**
 * The response store (issue 27 §3): one row per stored turn in `stored_responses`, scoped by
 * organization and environment, the turn sealed with the secrets package (AES-256-GCM, key id kept
 * for rotation) under a context naming the organization and id, so a row moved to another tenant does
 * not open. Rows expire an hour after their last use (reads check the expiry, `sweep` deletes them),
 * belong to the gateway key that made them (deleted with it: a foreign key with ON DELETE CASCADE),
 * and the organization's count is bounded (least recently used out first).
 */
export class ResponseStore {
  constructor(
    private readonly sql: SqlPool,
    private readonly secrets: SecretBox,
    private readonly options: { maxPerOrganization?: number; now?: () => number } = {},
  ) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private context(organizationId: string, id: string): string {
    return `model-gateway:stored-response:${organizationId}:${id}`;
  }

  async save(scope: StoreScope, keyHash: string, turn: StoredTurn): Promise<void> {
    const now = this.now();
    const sealed = this.secrets.seal(JSON.stringify(turn), this.context(scope.organizationId, turn.id));
    await this.sql.query(
      `INSERT INTO stored_responses (id, organization_id, environment, key_hash, surface, model, vendor, sealed, bytes, created_at, last_used_at, expires_at)
       VALUES ($1, $2::uuid, $3::"Environment", $4, $5, $6, $7, $8, $9, $10, $10, $11)
       ON CONFLICT (id) DO NOTHING`,
      [turn.id, scope.organizationId, scope.environment, keyHash, turn.surface, turn.model, turn.vendor, sealed, sealed.length, new Date(now), new Date(now + STORED_RESPONSE_TTL_MS)],
    );
    await this.bound(scope.organizationId);
  }

  /** The turn, or null when it is unknown, expired or another organization's or environment's; a hit renews its hour. */
  async get(scope: StoreScope, id: string): Promise<StoredTurn | null> {
    const now = this.now();
    const result = await this.sql.query<Row>(
      `UPDATE stored_responses SET last_used_at = $4, expires_at = $5
        WHERE id = $1 AND organization_id = $2::uuid AND environment = $3::"Environment" AND expires_at > $4
        RETURNING sealed`,
      [id, scope.organizationId, scope.environment, new Date(now), new Date(now + STORED_RESPONSE_TTL_MS)],
    );
    const row = result.rows[0];
    if (!row) return null;
    return JSON.parse(this.secrets.open(row.sealed, this.context(scope.organizationId, id))) as StoredTurn;
  }

  /** True when a turn was deleted (an expired one counts as gone already). */
  async delete(scope: StoreScope, id: string): Promise<boolean> {
    const result = await this.sql.query<{ expires_at: Date }>(
      `DELETE FROM stored_responses WHERE id = $1 AND organization_id = $2::uuid AND environment = $3::"Environment" RETURNING expires_at`,
      [id, scope.organizationId, scope.environment],
    );
    const row = result.rows[0];
    return row !== undefined && row.expires_at.getTime() > this.now();
  }

  /** Every stored turn of an organization (when the organization goes). */
  async deleteOrganization(organizationId: string): Promise<number> {
    const result = await this.sql.query(`DELETE FROM stored_responses WHERE organization_id = $1::uuid`, [organizationId]);
    return result.rowCount ?? 0;
  }

  /**
   * Deletes the turns of organizations that no longer exist (`exists` answers false); returns how many.
   * The gateway's sweep runs it, so an organization's turns go with it whichever way it was deleted, also
   * when that happened while no gateway ran. An organization that cannot be checked now (`exists` throws:
   * its service is unreachable) keeps its turns until a later sweep: a turn is never deleted on a guess.
   */
  async sweepDeletedOrganizations(exists: (organizationId: string) => Promise<boolean>): Promise<number> {
    const result = await this.sql.query<{ id: string }>(`SELECT DISTINCT organization_id::text AS id FROM stored_responses`, []);
    let deleted = 0;
    for (const { id } of result.rows) {
      const present = await exists(id).catch(() => true);
      if (!present) deleted += await this.deleteOrganization(id);
    }
    return deleted;
  }

  /** Deletes expired turns; returns how many. */
  async sweep(): Promise<number> {
    const result = await this.sql.query(`DELETE FROM stored_responses WHERE expires_at <= $1`, [new Date(this.now())]);
    return result.rowCount ?? 0;
  }

  /** Keeps the organization within its bound: the least recently used turns past it are deleted. */
  private async bound(organizationId: string): Promise<void> {
    const max = this.options.maxPerOrganization ?? DEFAULT_MAX_STORED_PER_ORGANIZATION;
    await this.sql.query(
      `DELETE FROM stored_responses WHERE id IN (
         SELECT id FROM stored_responses WHERE organization_id = $1::uuid ORDER BY last_used_at DESC, id OFFSET $2)`,
      [organizationId, max],
    );
  }
}
