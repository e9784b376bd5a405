/**
 * Deterministic made-up people and events for the marketing-platform fakes: the same (seed, index)
 * always gives the same record, with no state, so a record can be made again whenever it is read.
 */

/** A 32-bit hash of two integers (splitmix-style), the randomness behind every generated field. */
export function mix(a: number, b: number): number {
  let h = (Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x632be5ab, 0xc2b2ae35)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d) >>> 0;
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

export function pick<T>(list: readonly T[], hash: number): T {
  return list[hash % list.length]!;
}

const FIRST = ['Ada', 'Grace', 'Alan', 'Katherine', 'Linus', 'Margaret', 'Dennis', 'Barbara', 'Ken', 'Frances', 'Edsger', 'Radia', 'Donald', 'Hedy', 'Tim', 'Joan', 'Guido', 'Sophie', 'Bjarne', 'Anita'];
const LAST = ['Lovelace', 'Hopper', 'Turing', 'Johnson', 'Torvalds', 'Hamilton', 'Ritchie', 'Liskov', 'Thompson', 'Allen', 'Dijkstra', 'Perlman', 'Knuth', 'Lamarr', 'Berners-Lee', 'Clarke', 'van Rossum', 'Wilson', 'Stroustrup', 'Borg'];
const DOMAINS = ['example.com', 'example.org', 'acme.test', 'globex.test', 'initech.test'];
const TOPICS = ['Product Launch', 'Quarterly Roadmap', 'Customer Summit', 'Onboarding Clinic', 'Partner Day', 'Growth Workshop', 'Security Briefing', 'Analytics Deep Dive', 'Community Meetup', 'Year in Review'];
const EVENT_TYPES = ['WEBINAR', 'CONFERENCE', 'WORKSHOP', 'MEETUP'];

/** Places as the platforms store them: ISO 3166 alpha-2, the English name, the state, a postal code, a phone prefix. */
export interface Place {
  iso2: string;
  /** The name a free-text country field holds (HubSpot's `country`). */
  name: string;
  /** A variant some people type instead, or a value no standard knows (to exercise mapping). */
  alias: string;
  state: string;
  stateCode: string;
  city: string;
  postalCode: string;
  dialCode: string;
}

const PLACES: readonly Place[] = [
  { iso2: 'US', name: 'United States', alias: 'USA', state: 'California', stateCode: 'CA', city: 'San Francisco', postalCode: '94105', dialCode: '+1 415' },
  { iso2: 'US', name: 'United States', alias: 'United States of America', state: 'New York', stateCode: 'NY', city: 'New York', postalCode: '10001', dialCode: '+1 212' },
  { iso2: 'GB', name: 'United Kingdom', alias: 'UK', state: 'England', stateCode: 'ENG', city: 'London', postalCode: 'EC1A 1BB', dialCode: '+44 20' },
  { iso2: 'DE', name: 'Germany', alias: 'Deutschland', state: 'Berlin', stateCode: 'BE', city: 'Berlin', postalCode: '10115', dialCode: '+49 30' },
  { iso2: 'FR', name: 'France', alias: 'France', state: 'Île-de-France', stateCode: 'IDF', city: 'Paris', postalCode: '75001', dialCode: '+33 1' },
  { iso2: 'CA', name: 'Canada', alias: 'Canada', state: 'Ontario', stateCode: 'ON', city: 'Toronto', postalCode: 'M5H 2N2', dialCode: '+1 416' },
  { iso2: 'AU', name: 'Australia', alias: 'Australia', state: 'New South Wales', stateCode: 'NSW', city: 'Sydney', postalCode: '2000', dialCode: '+61 2' },
  { iso2: 'JP', name: 'Japan', alias: 'Nippon', state: 'Tokyo', stateCode: '13', city: 'Tokyo', postalCode: '100-0001', dialCode: '+81 3' },
  { iso2: 'BR', name: 'Brazil', alias: 'Brasil', state: 'São Paulo', stateCode: 'SP', city: 'São Paulo', postalCode: '01000-000', dialCode: '+55 11' },
  { iso2: 'IN', name: 'India', alias: 'Bharat', state: 'Karnataka', stateCode: 'KA', city: 'Bengaluru', postalCode: '560001', dialCode: '+91 80' },
  // A country no ISO list knows: a unified API maps it to its "nonstandard value".
  { iso2: 'ZZ', name: 'Atlantis', alias: 'Atlantis', state: 'Poseidonia', stateCode: 'PO', city: 'Poseidonis', postalCode: '00000', dialCode: '+999' },
];

/** A made-up person: the same `n` always gives the same person. */
export interface Person {
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  place: Place;
  company: string;
  jobTitle: string;
}

export function person(seed: number, n: number): Person {
  const h = mix(seed, n);
  const firstName = pick(FIRST, h);
  const lastName = pick(LAST, h >>> 5);
  const place = pick(PLACES, h >>> 10);
  const local = `${firstName}.${lastName}`.toLowerCase().replace(/[^a-z.]/g, '');
  return {
    firstName,
    lastName,
    // The number makes every person's address unique, as a contact's email is on every platform.
    email: `${local}.${n}@${pick(DOMAINS, h >>> 14)}`,
    phone: `${place.dialCode} ${String(1_000_000 + (h % 9_000_000)).slice(0, 3)} ${String(h % 10_000).padStart(4, '0')}`,
    place,
    company: pick(['Acme', 'Globex', 'Initech', 'Umbrella', 'Hooli', 'Stark Industries'], h >>> 18),
    jobTitle: pick(['Engineer', 'Marketing Manager', 'Founder', 'Analyst', 'Designer', 'Sales Lead'], h >>> 21),
  };
}

/** A made-up event title: the same `n` always gives the same title. */
export function eventTitle(seed: number, n: number): { title: string; summary: string; type: string } {
  const h = mix(seed ^ 0x5eed, n);
  const topic = pick(TOPICS, h);
  return {
    title: `${topic} #${n + 1}`,
    summary: `${topic}: session ${n + 1}, with time for questions.`,
    type: pick(EVENT_TYPES, h >>> 8),
  };
}

/** ISO 8601 in UTC with milliseconds (`2026-01-01T00:00:00.000Z`). */
export const iso = (ms: number): string => new Date(ms).toISOString();

/** ISO 8601 in UTC to the second, as Eventbrite and Zoom write it (`2026-01-01T00:00:00Z`). */
export const isoSeconds = (ms: number): string => `${new Date(ms).toISOString().slice(0, 19)}Z`;

/**
 * A stable 22-character id in Zoom's id alphabet (base64url), unique per `n` for a given salt: eleven
 * characters of scramble, then `n` itself in base 64, so two numbers never share an id.
 */
export function shortId(n: number, salt = 0): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  let out = '';
  let h = mix(n, salt);
  for (let i = 0; i < 11; i += 1) {
    out += alphabet[h & 63];
    h = i % 5 === 4 ? mix(h, i) : h >>> 6;
  }
  let rest = n;
  for (let i = 0; i < 11; i += 1) {
    out += alphabet[rest % 64];
    rest = Math.floor(rest / 64);
  }
  return out;
}

/**
 * Checks the sizes of a seeding and lays its events out in time: an hour apart, the first
 * `pastShare` of them over by `at`, the rest starting from half an hour after it.
 */
export function seedTimeline(at: number, count: number, perEvent: number, pastShare = 0.5, names: [string, string] = ['events', 'participants per event']) {
  if (!Number.isInteger(count) || count < 0 || !Number.isInteger(perEvent) || perEvent < 0 || perEvent >= 1_000_000) {
    throw new Error(`seed needs whole numbers of ${names[0]} and ${names[1]} (fewer than 1,000,000 ${names[1]})`);
  }
  const past = Math.floor(count * pastShare);
  return { past, startOf: (k: number) => at + (k - past) * 3_600_000 + (k < past ? -3_600_000 : 1_800_000) };
}
