import { ValidationError, type FieldError } from '@patchbay/errors';
import { PLATFORMS, type Platform, type PlatformConnection } from '@patchbay/marketing-platforms';
import type { SecretBox } from '@patchbay/secrets';
import type { PlatformConfig } from '../services';

/** The credential fields each platform takes (all strings); `oneOf` lists the accepted combinations. */
export const CREDENTIAL_FIELDS: Record<Platform, { label: string; oneOf: string[][]; optional: string[] }> = {
  hubspot: { label: 'HubSpot', oneOf: [['access_token']], optional: [] },
  zoom: { label: 'Zoom', oneOf: [['access_token'], ['account_id', 'client_id', 'client_secret']], optional: ['user_id'] },
  eventbrite: { label: 'Eventbrite', oneOf: [['access_token']], optional: ['organization_id'] },
};

export function isPlatform(value: unknown): value is Platform {
  return typeof value === 'string' && (PLATFORMS as readonly string[]).includes(value);
}

export function platformField(value: unknown, field = 'body.platform'): Platform {
  if (!isPlatform(value)) throw ValidationError.forField(field, `must be one of ${PLATFORMS.join(', ')}`);
  return value;
}

/** Checks a credentials object against the platform's fields; returns only the known fields. */
export function parseCredentials(platform: Platform, raw: unknown, field = 'body.credentials'): Record<string, string> {
  const spec = CREDENTIAL_FIELDS[platform];
  const want = spec.oneOf.map((set) => set.join(' + ')).join(', or ');
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw ValidationError.forField(field, `must be an object with ${want}`);
  const errors: FieldError[] = [];
  const known = new Set([...spec.oneOf.flat(), ...spec.optional]);
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (!known.has(key)) {
      errors.push({ field: `${field}.${key}`, message: `is not a ${spec.label} credential field (accepted: ${[...known].join(', ')})` });
      continue;
    }
    if (typeof value !== 'string' || value.trim() === '' || value.length > 4096) {
      errors.push({ field: `${field}.${key}`, message: 'must be a non-empty string of at most 4096 characters' });
      continue;
    }
    out[key] = value.trim();
  }
  if (errors.length > 0) throw new ValidationError(errors);
  if (!spec.oneOf.some((set) => set.every((k) => k in out))) throw ValidationError.forField(field, `${spec.label} needs ${want}`);
  return out;
}

/** Where a platform's API is, from the operator's configuration. */
export function connectionFor(platform: Platform, credentials: Record<string, string>, config: PlatformConfig): PlatformConnection {
  switch (platform) {
    case 'hubspot':
      return { platform, credentials, baseUrl: config.PATCHBAY_MKTG_HUBSPOT_BASE_URL };
    case 'zoom':
      return { platform, credentials, baseUrl: config.PATCHBAY_MKTG_ZOOM_BASE_URL, tokenUrl: config.PATCHBAY_MKTG_ZOOM_TOKEN_URL };
    case 'eventbrite':
      return { platform, credentials, baseUrl: config.PATCHBAY_MKTG_EVENTBRITE_BASE_URL };
  }
}

/** Sealing context: a ciphertext copied into another linked account does not open. */
const sealContext = (linkedAccountId: string) => `linked_account:${linkedAccountId}`;

export function sealCredentials(box: SecretBox, linkedAccountId: string, credentials: Record<string, string>): string {
  return box.seal(JSON.stringify(credentials), sealContext(linkedAccountId));
}

export function openCredentials(box: SecretBox, linkedAccountId: string, sealed: string): Record<string, string> {
  return JSON.parse(box.open(sealed, sealContext(linkedAccountId))) as Record<string, string>;
}
