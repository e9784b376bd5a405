import { createHash } from 'node:crypto';
import type { ContactFields, EventFields, FetchedContact, FetchedEvent, FieldMapping, FieldMappingsValue, RemoteData, SyncModel } from './types';

/**
 * JSON with object keys sorted at every level, so the same data always gives the same text whatever
 * order a platform (or our own code) put the keys in. `undefined` members are left out, as JSON does.
 */
export function canonicalJson(value: unknown): string {
  // Hand-rolled rather than map/filter/join, with the quoted keys and sorted key orders remembered:
  // it runs over every payload of every record a sync fetches, and those repeat the same few shapes.
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return canonicalJson((value as { toJSON(): unknown }).toJSON());
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i += 1) {
          if (i > 0) out += ',';
          const item: unknown = value[i];
          out += item === undefined || typeof item === 'function' ? 'null' : canonicalJson(item);
        }
        return `${out}]`;
      }
      const obj = value as Record<string, unknown>;
      let out = '{';
      let first = true;
      for (const key of sortedKeys(obj)) {
        const item = obj[key];
        if (item === undefined || typeof item === 'function') continue;
        out += `${first ? '' : ','}${quotedKey(key)}${canonicalJson(item)}`;
        first = false;
      }
      return `${out}}`;
    }
    default:
      return 'null';
  }
}

const MEMO_LIMIT = 10_000;
const quoted = new Map<string, string>();
const orders = new Map<string, string[]>();

function quotedKey(key: string): string {
  let q = quoted.get(key);
  if (q === undefined) {
    q = `${JSON.stringify(key)}:`;
    if (quoted.size < MEMO_LIMIT) quoted.set(key, q);
  }
  return q;
}

function sortedKeys(obj: Record<string, unknown>): string[] {
  const keys = Object.keys(obj);
  if (keys.length < 2) return keys;
  const shape = keys.join('\u0000');
  let order = orders.get(shape);
  if (order === undefined) {
    order = [...keys].sort();
    if (orders.size < MEMO_LIMIT) orders.set(shape, order);
  }
  return order;
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
