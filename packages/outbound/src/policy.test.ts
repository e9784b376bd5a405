import { outboundPolicyFromEnv } from './policy';

describe('outboundPolicyFromEnv', () => {
  it('keeps private networks closed by default', () => {
    expect(outboundPolicyFromEnv({})).toEqual({ allowPrivateNetwork: false });
    expect(outboundPolicyFromEnv({ PATCHBAY_ALLOW_PRIVATE_NETWORK: '' })).toEqual({ allowPrivateNetwork: false });
    expect(outboundPolicyFromEnv({ PATCHBAY_ALLOW_PRIVATE_NETWORK: 'false' })).toEqual({ allowPrivateNetwork: false });
  });

  it('opens them only for PATCHBAY_ALLOW_PRIVATE_NETWORK=true', () => {
    expect(outboundPolicyFromEnv({ PATCHBAY_ALLOW_PRIVATE_NETWORK: 'true' })).toEqual({ allowPrivateNetwork: true });
    expect(outboundPolicyFromEnv({ PATCHBAY_ALLOW_PRIVATE_NETWORK: 'TRUE' })).toEqual({ allowPrivateNetwork: true });
  });

  it('refuses any other value instead of guessing', () => {
    expect(() => outboundPolicyFromEnv({ PATCHBAY_ALLOW_PRIVATE_NETWORK: 'yes' })).toThrow('PATCHBAY_ALLOW_PRIVATE_NETWORK must be "true" or "false"');
  });
});
