import type { KeyPrincipal } from '@patchbay/auth';
import { listedEnvironments } from './registered-users';

function key(environment: 'production' | 'test', environmentMatching: boolean): KeyPrincipal {
  return {
    keyId: 'k',
    organizationId: 'o',
    environment,
    scopes: ['management:all'],
    toolPackIds: null,
    registeredUserIds: null,
    expiresAt: null,
    isMaster: false,
    serviceAccount: null,
    organization: { id: 'o', plan: 'paid', monthlyCredits: 0, environmentMatching, mcpRateLimitPerMinute: 30, callbackOrigins: [] },
  };
}

describe('listedEnvironments: the spec precedence, bounded by the key environment', () => {
  const cases: Array<[string, KeyPrincipal, { includeTestUsers?: boolean; isTest?: boolean }, string[]]> = [
    ['production key, default: production users', key('production', false), {}, ['production']],
    ['production key, include_test_users: still only production (test users are another environment)', key('production', false), { includeTestUsers: true }, ['production']],
    ['production key, is_test=true: none', key('production', false), { isTest: true }, []],
    ['production key with environment matching: production users', key('production', true), {}, ['production']],
    ['test key, default without environment matching: production only, so none', key('test', false), {}, []],
    ['test key, default with environment matching: test users', key('test', true), {}, ['test']],
    ['test key, is_test=true: test users', key('test', false), { isTest: true }, ['test']],
    ['test key, include_test_users: test users', key('test', false), { includeTestUsers: true }, ['test']],
    ['test key, is_test=false overrides include_test_users and matching: none', key('test', true), { isTest: false, includeTestUsers: true }, []],
  ];
  it.each(cases)('%s', (_name, principal, filters, expected) => {
    expect(listedEnvironments(principal, filters)).toEqual(expected);
  });
});
