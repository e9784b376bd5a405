import { SecretBox } from '@patchbay/secrets';
import type { Db } from '../db';
import { clientSecretContext } from './application-credentials';
import { linkFlowContext } from './link-tokens';
import { connectionSecretContext } from './store-credential';
import { customConnectorSecretContext } from './custom-connectors';

/** One sealed column: how to page through the rows still sealed with another key, and how to swap one value. */
interface SealedColumn {
  name: string;
  context(id: string): string;
  /** Rows after `afterId` (id order) whose value does not start with the active key's prefix. */
  batch(db: Db, afterId: string | null, activePrefix: string, limit: number): Promise<Array<{ id: string; sealed: string | null }>>;
  /** Replaces the value only if it is still `from` (a concurrent write wins); true when replaced. */
  swap(db: Db, id: string, from: string, to: string): Promise<boolean>;
}

const after = (afterId: string | null) => (afterId === null ? {} : { id: { gt: afterId } });

/**
 * Every column sealed with the secret box, with the context its owner seals it under. A new sealed
 * column must be added here, or a key rotation leaves it behind.
 */
export const SEALED_COLUMNS: SealedColumn[] = [
  {
    name: 'connections.credential_sealed',
    context: connectionSecretContext,
    batch: (db, afterId, prefix, limit) =>
      db.connection
        .findMany({ where: { ...after(afterId), NOT: { credentialSealed: { startsWith: prefix } } }, select: { id: true, credentialSealed: true }, orderBy: { id: 'asc' }, take: limit })
        .then((rows) => rows.map((r) => ({ id: r.id, sealed: r.credentialSealed }))),
    swap: async (db, id, from, to) => (await db.connection.updateMany({ where: { id, credentialSealed: from }, data: { credentialSealed: to } })).count === 1,
  },
  {
    name: 'application_credentials.client_secret_sealed',
    context: clientSecretContext,
    batch: (db, afterId, prefix, limit) =>
      db.applicationCredential
        .findMany({ where: { ...after(afterId), clientSecretSealed: { not: null }, NOT: { clientSecretSealed: { startsWith: prefix } } }, select: { id: true, clientSecretSealed: true }, orderBy: { id: 'asc' }, take: limit })
        .then((rows) => rows.map((r) => ({ id: r.id, sealed: r.clientSecretSealed }))),
    swap: async (db, id, from, to) => (await db.applicationCredential.updateMany({ where: { id, clientSecretSealed: from }, data: { clientSecretSealed: to } })).count === 1,
  },
  {
    name: 'custom_connectors.secret_sealed',
    // The context custom-connectors.ts seals the server's secret with.
    context: customConnectorSecretContext,
    batch: (db, afterId, prefix, limit) =>
      db.customConnector
        .findMany({ where: { ...after(afterId), secretSealed: { not: null }, NOT: { secretSealed: { startsWith: prefix } } }, select: { id: true, secretSealed: true }, orderBy: { id: 'asc' }, take: limit })
        .then((rows) => rows.map((r) => ({ id: r.id, sealed: r.secretSealed }))),
    swap: async (db, id, from, to) => (await db.customConnector.updateMany({ where: { id, secretSealed: from }, data: { secretSealed: to } })).count === 1,
  },
  {
    name: 'link_tokens.pkce_verifier_sealed',
    context: linkFlowContext,
    batch: (db, afterId, prefix, limit) =>
      db.linkToken
        .findMany({ where: { ...after(afterId), pkceVerifierSealed: { not: null }, NOT: { pkceVerifierSealed: { startsWith: prefix } } }, select: { id: true, pkceVerifierSealed: true }, orderBy: { id: 'asc' }, take: limit })
        .then((rows) => rows.map((r) => ({ id: r.id, sealed: r.pkceVerifierSealed }))),
    swap: async (db, id, from, to) => (await db.linkToken.updateMany({ where: { id, pkceVerifierSealed: from }, data: { pkceVerifierSealed: to } })).count === 1,
  },
];

export interface RekeyCounts {
  column: string;
  /** Values found sealed with another key than the active one. */
  found: number;
  /** Re-sealed with the active key. */
  resealed: number;
  /** Changed by someone else between the read and the write (the new value was left alone). */
  changed: number;
  /** Could not be opened (their key is not configured, or the value is damaged): ids only, never values. */
  failed: string[];
}

export interface RekeyOptions {
  batchSize?: number;
  /** Progress after each batch. */
  onBatch?: (counts: RekeyCounts) => void;
}

/**
 * Re-seals every sealed value that is not sealed with the box's active key. Each row is its own
 * short statement (a compare-and-swap on the old value), so the service keeps running and a
 * concurrent write is never overwritten; running it again finds only what is left. Keys are
 * retired from PATCHBAY_ENCRYPTION_KEYS once a run reports nothing found and nothing failed.
 */
export async function rekeyAll(db: Db, box: SecretBox, options: RekeyOptions = {}): Promise<RekeyCounts[]> {
  const limit = options.batchSize ?? 500;
  const prefix = activePrefix(box);
  const results: RekeyCounts[] = [];
  for (const column of SEALED_COLUMNS) {
    const counts: RekeyCounts = { column: column.name, found: 0, resealed: 0, changed: 0, failed: [] };
    let afterId: string | null = null;
    for (;;) {
      const rows = await column.batch(db, afterId, prefix, limit);
      if (rows.length === 0) break;
      for (const row of rows) {
        afterId = row.id;
        if (row.sealed === null || SecretBox.keyIdOf(row.sealed) === box.activeKeyId) continue;
        counts.found += 1;
        let resealed: string;
        try {
          resealed = box.reseal(row.sealed, column.context(row.id));
        } catch {
          counts.failed.push(row.id);
          continue;
        }
        if (await column.swap(db, row.id, row.sealed, resealed)) counts.resealed += 1;
        else counts.changed += 1;
      }
      options.onBatch?.(counts);
      if (rows.length < limit) break;
    }
    results.push(counts);
  }
  return results;
}

/** The start every value sealed with the active key has (`v1.<key id>.`), found by sealing a probe. */
function activePrefix(box: SecretBox): string {
  const probe = box.seal('', 'rekey-probe');
  return `${probe.split('.').slice(0, 2).join('.')}.`;
}
