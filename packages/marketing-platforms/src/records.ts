import { createHash } from 'node:crypto';
import type { ContactFields, EventFields, FetchedContact, FetchedEvent, FieldMapping, FieldMappingsValue, RemoteData, SyncModel } from './types';

/**
 * JSON with object keys sorted at every level, so the same data always gives the same text whatever
 * order a platform (or our own code) put the keys in. `undefined` members are left out, as JSON does.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
}

/** sha256 hex of the canonical JSON of what a record stores: its mapped fields, field mappings and original payloads. */
export function recordHash(fields: unknown, fieldMappings: FieldMappingsValue, remoteData: RemoteData[]): string {
  return createHash('sha256').update(canonicalJson({ fields, fieldMappings, remoteData })).digest('hex');
}

/** A platform timestamp (ISO text, epoch ms) as ISO 8601 UTC with milliseconds, or null. */
export function isoOrNull(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  const ms = typeof value === 'number' ? value : typeof value === 'string' ? Date.parse(value) : NaN;
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** Trimmed text, or null for nothing. */
export function textOrNull(value: unknown): string | null {
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string') return null;
  const t = value.trim();
  return t === '' ? null : t;
}

/** Reads a dot path (`profile.addresses.home.country`, `custom_questions.0.value`, `customProperties.<name>`). */
export function readPath(data: unknown, path: string): unknown {
  let cur: unknown = data;
  for (const part of path.split('.')) {
    if (cur === null || cur === undefined) return undefined;
    if (Array.isArray(cur)) {
      if (/^\d+$/.test(part)) {
        cur = cur[Number(part)];
        continue;
      }
      // Name/value lists (HubSpot customProperties, Zoom custom_questions): the value of the entry with that name/title.
      const hit = cur.find((e) => typeof e === 'object' && e !== null && ((e as Record<string, unknown>).name === part || (e as Record<string, unknown>).title === part));
      cur = hit === undefined ? undefined : ((hit as Record<string, unknown>).value ?? (hit as Record<string, unknown>).values);
      continue;
    }
    if (typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** Merge's field_mappings object for one record: each mapping's target holds the value at its remote path (null when absent). */
export function applyFieldMappings(mappings: FieldMapping[], model: SyncModel, data: unknown): FieldMappingsValue {
  const organization: Record<string, unknown> = {};
  const linkedAccount: Record<string, unknown> = {};
  for (const m of mappings) {
    if (m.model !== model) continue;
    const value = readPath(data, m.remotePath);
    (m.scope === 'organization' ? organization : linkedAccount)[m.target] = value === undefined ? null : value;
  }
  return { organization_defined_targets: organization, linked_account_defined_targets: linkedAccount };
}

export function makeEvent(remoteId: string, fields: EventFields, remoteUpdatedAt: string | null, remoteData: RemoteData[], mappings: FieldMapping[]): FetchedEvent {
  const fieldMappings = applyFieldMappings(mappings, 'events', remoteData[0]?.data);
  return {
    remoteId,
    fields,
    remoteCreatedAt: fields.remote_created_at ? new Date(fields.remote_created_at) : null,
    remoteUpdatedAt: remoteUpdatedAt ? new Date(remoteUpdatedAt) : null,
    remoteData,
    fieldMappings,
    hash: recordHash(fields, fieldMappings, remoteData),
  };
}

export function makeContact(remoteId: string, fields: ContactFields, remoteData: RemoteData[], mappings: FieldMapping[]): FetchedContact {
  const fieldMappings = applyFieldMappings(mappings, 'contacts', remoteData[0]?.data);
  return { remoteId, fields, remoteData, fieldMappings, hash: recordHash(fields, fieldMappings, remoteData) };
}
