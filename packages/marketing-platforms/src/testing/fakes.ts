import {
  EVENTBRITE_FAKE_TOKENS,
  HUBSPOT_FAKE_TOKENS,
  ZOOM_FAKE_CREDENTIALS,
  startFakeEventbrite,
  startFakeHubspot,
  startFakeZoom,
  type FakeClock,
  type FaultControl,
  type PlatformLoggedRequest,
} from '@patchbay/provider-fakes';
import type { Platform, PlatformConnection } from '../types';

/** One platform fake started in-process, seen the same way for every platform. */
export interface PlatformFake {
  platform: Platform;
  conn: PlatformConnection;
  clock: FakeClock;
  faults: FaultControl;
  requests: PlatformLoggedRequest[];
  seed(events: number, perEvent: number): void;
  /** The platform's credentials stop working for good. */
  revoke(): void;
  /** Every event id a complete walk must find. */
  expectedEvents(): string[];
  /** Every `eventId|contactId` link a complete walk must find. */
  expectedLinks(): string[];
  /** Matches contact listing requests (to aim faults at). */
  contactsPath: string | RegExp;
  /** Matches events listing requests. */
  eventsPath: string | RegExp;
  close(): Promise<void>;
}

export async function startPlatformFake(platform: Platform, options: { recordRequests?: boolean } = {}): Promise<PlatformFake> {
  if (platform === 'hubspot') {
    const hs = await startFakeHubspot(undefined, { recordRequests: options.recordRequests });
    return {
      platform,
      conn: { platform, credentials: { access_token: HUBSPOT_FAKE_TOKENS.valid }, baseUrl: hs.baseUrl },
      clock: hs.clock,
      faults: hs.faults,
      requests: hs.requests,
      seed: (events, per) => void hs.portal.seed({ events, participantsPerEvent: per }),
      revoke: () => hs.portal.revokeToken(),
      expectedEvents: () => hs.portal.allEvents().map((e) => e.objectId),
      expectedLinks: () =>
        hs.portal.allEvents().flatMap((e) => hs.portal.allParticipations(e.objectId).map((p) => `${e.objectId}|${(p.associations as { contact: { contactId: string } }).contact.contactId}`)),
      contactsPath: '/participations/',
      eventsPath: /marketing-events\/?(\?|$)/,
      close: () => hs.close(),
    };
  }
  if (platform === 'zoom') {
    const zoom = await startFakeZoom({ recordRequests: options.recordRequests });
    return {
      platform,
      conn: {
        platform,
        credentials: { account_id: ZOOM_FAKE_CREDENTIALS.accountId, client_id: ZOOM_FAKE_CREDENTIALS.clientId, client_secret: ZOOM_FAKE_CREDENTIALS.clientSecret },
        baseUrl: zoom.baseUrl,
        tokenUrl: zoom.tokenUrl,
        // Each fake gets a cache of its own: tokens of one fake mean nothing to the next.
        tokenCache: new Map<string, { token: string; expiresAt: number }>(),
      },
      clock: zoom.clock,
      faults: zoom.faults,
      requests: zoom.requests,
      seed: (events, per) => void zoom.account.seed({ webinars: events, registrantsPerWebinar: per }),
      revoke: () => zoom.account.disableApp(),
      expectedEvents: () => zoom.account.allWebinars().map((w) => String(w.id)),
      expectedLinks: () =>
        zoom.account.allWebinars().flatMap((w) => {
          const registered = zoom.account.allRegistrants(w.id, 'approved').map((r) => `${w.id}|${r.id}`);
          const guests = zoom.account
            .allParticipants(w.id)
            .filter((p) => !p.registrant_id)
            .map((p) => `${w.id}|participant:${p.user_email.toLowerCase()}`);
          return [...registered, ...guests];
        }),
      contactsPath: '/registrants',
      eventsPath: /\/users\/[^/]+\/webinars/,
      close: () => zoom.close(),
    };
  }
  const eb = await startFakeEventbrite({ recordRequests: options.recordRequests });
  return {
    platform,
    conn: { platform, credentials: { access_token: EVENTBRITE_FAKE_TOKENS.valid }, baseUrl: eb.baseUrl },
    clock: eb.clock,
    faults: eb.faults,
    requests: eb.requests,
    seed: (events, per) => void eb.account.seed({ events, attendeesPerEvent: per }),
    revoke: () => eb.account.revokeToken(),
    expectedEvents: () => eb.account.allEvents().map((e) => e.id),
    expectedLinks: () => eb.account.allEvents().flatMap((e) => eb.account.allAttendees(e.id).map((a) => `${e.id}|${a.id}`)),
    contactsPath: '/attendees/',
    eventsPath: /\/organizations\/\d+\/events/,
    close: () => eb.close(),
  };
}
