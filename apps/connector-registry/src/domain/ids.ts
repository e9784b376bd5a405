import { createHash } from 'node:crypto';

const NAMESPACE = Buffer.from('6f1c2d7e9a3b4c5d8e0f1a2b3c4d5e6f', 'hex');

/**
 * A built-in connector's id: a UUID v5 of its slug, the same in every deployment and organization,
 * so tool packs can name built-in connectors by `connector_id` as the spec asks.
 */
export function builtinConnectorId(slug: string): string {
  const hash = createHash('sha1').update(NAMESPACE).update(`builtin:${slug}`).digest();
  hash[6] = ((hash[6] as number) & 0x0f) | 0x50;
  hash[8] = ((hash[8] as number) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export { UUID_PATTERN, isUuid } from '@patchbay/service-kit';
