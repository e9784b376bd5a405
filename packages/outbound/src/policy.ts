/** Whether user-supplied destinations may be private. Off everywhere but local development. */
export interface OutboundPolicy {
  allowPrivateNetwork: boolean;
}

const VARIABLE = 'PATCHBAY_ALLOW_PRIVATE_NETWORK';

/**
 * Reads PATCHBAY_ALLOW_PRIVATE_NETWORK (`true` or `false`, default `false`). Any other value is an
 * error rather than a guess, so a typo can never quietly open the private network.
 */
export function outboundPolicyFromEnv(env: NodeJS.ProcessEnv = process.env): OutboundPolicy {
  const raw = env[VARIABLE]?.trim().toLowerCase();
  if (raw === undefined || raw === '' || raw === 'false') return { allowPrivateNetwork: false };
  if (raw === 'true') return { allowPrivateNetwork: true };
  throw new Error(`${VARIABLE} must be "true" or "false" (got "${env[VARIABLE]}").`);
}
