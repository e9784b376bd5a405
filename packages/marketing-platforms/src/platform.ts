import type { PlatformHttp } from './http';
import type { AccountInfo, FetchedContact, FetchedEvent, FieldMapping, SyncModel } from './types';

/** What the contact walk of an event needs to know about it, kept in the checkpoint (small, JSON). */
export type EventContext = Record<string, string | number | boolean | null>;

export interface EventsPage {
  events: FetchedEvent[];
  /** Per event, in the same order: what its contact listings need. */
  contexts: EventContext[];
  /** The page token of the next page, null at the end. */
  next: string | null;
}

export interface ContactsPage {
  /**
   * The listing's items on this page, in order (participations, registrants, attendees), each with
   * the contact it stands for (null: nothing to write, e.g. a Zoom participant who registered). The
   * ids let a listing restarted after an expired page token skip what was already written.
   */
  items: Array<{ itemId: string; contact: FetchedContact | null }>;
  next: string | null;
}

/** One platform, as the sync engine drives it. Every method throws `PlatformError` on failure. */
export interface PlatformClient {
  /** The contact listings walked per event, in order (Zoom: registrants, then participants). */
  readonly listings: readonly string[];
  /** The page size each listing asks for (the platform's maximum unless tuned down). */
  verify(): Promise<AccountInfo>;
  /** The containers events are listed in (Eventbrite organizations, Zoom users; HubSpot: one, ''). */
  scopes(): Promise<string[]>;
  eventsPage(scope: string, cursor: string | null): Promise<EventsPage>;
  /**
   * One page of an event's contacts from one listing. `modifiedSince` narrows it where the platform
   * has a filter (Eventbrite `changed_since`). An event deleted since it was listed gives an empty last page.
   */
  contactsPage(eventId: string, ctx: EventContext, listing: string, cursor: string | null, modifiedSince: Date | null): Promise<ContactsPage>;
}

export interface ClientOptions {
  http: PlatformHttp;
  credentials: Record<string, string>;
  fieldMappings: FieldMapping[];
  /** Page size asked for (clamped to the platform's maximum). */
  pageSize?: number;
}

/** The platform field paths a field mapping may name, per model; `*` stands for any name at that level. */
export type SupportedFields = Record<SyncModel, readonly string[]>;

export function clampPageSize(wanted: number | undefined, max: number): number {
  if (wanted === undefined || !Number.isFinite(wanted)) return max;
  return Math.max(1, Math.min(max, Math.floor(wanted)));
}

/** First and last name from one "name" field (Zoom participants): the first word, and the rest. */
export function splitName(name: unknown): { first: string | null; last: string | null } {
  if (typeof name !== 'string' || name.trim() === '') return { first: null, last: null };
  const [first, ...rest] = name.trim().split(/\s+/);
  return { first: first ?? null, last: rest.length > 0 ? rest.join(' ') : null };
}
