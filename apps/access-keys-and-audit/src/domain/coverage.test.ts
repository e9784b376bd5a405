import { covers, type KeyDimensions } from './coverage';

const caller: KeyDimensions = {
  id: 'caller',
  environment: 'production',
  scopes: ['runtime:all', 'management:all'],
  toolPackIds: ['tp1', 'tp2'],
  registeredUserIds: ['u1', 'u2'],
  expiresAt: new Date('2027-01-01T00:00:00Z'),
};
const covered: KeyDimensions = { ...caller, id: 'target', scopes: ['runtime:all'], toolPackIds: ['tp1'], registeredUserIds: ['u2'], expiresAt: new Date('2026-12-01T00:00:00Z') };

describe('a key covers a target on every dimension (spec, Authentication 9)', () => {
  it('covers a target narrower on every dimension', () => {
    expect(covers(caller, covered)).toBe(true);
  });

  it('always covers itself', () => {
    expect(covers({ ...caller, scopes: [] }, { ...caller, scopes: [] })).toBe(true);
  });

  // Each dimension alone breaks coverage.
  it.each<[string, Partial<KeyDimensions>]>([
    ['environment: both must be production or both test', { environment: 'test' }],
    ['scopes: the target\'s scopes must be a subset of the caller\'s', { scopes: ['runtime:all', 'management:all'] }],
    ['expiry: the target must expire no later than the caller', { expiresAt: new Date('2027-06-01T00:00:00Z') }],
    ['expiry: a target that never expires is not covered by a caller that does', { expiresAt: null }],
    ['tool packs: the target\'s set must be a subset of the caller\'s', { toolPackIds: ['tp3'] }],
    ['tool packs: an unrestricted target is not covered by a restricted caller', { toolPackIds: null }],
    ['registered users: the target\'s set must be a subset of the caller\'s', { registeredUserIds: ['u9'] }],
    ['registered users: an unrestricted target is not covered by a restricted caller', { registeredUserIds: null }],
  ])('does not cover when only %s differs', (_name, change) => {
    expect(covers({ ...caller, scopes: ['runtime:all'] }, { ...covered, ...change })).toBe(false);
  });

  it('an unrestricted caller that never expires covers every key of its environment', () => {
    const root: KeyDimensions = { ...caller, toolPackIds: null, registeredUserIds: null, expiresAt: null };
    expect(covers(root, { ...covered, toolPackIds: null, registeredUserIds: null, expiresAt: null })).toBe(true);
  });
});
