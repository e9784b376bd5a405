import {
  applyPiOverride,
  assertPiSettings,
  DEFAULT_PI_SETTINGS,
  InvalidPiSettingsError,
  piOverrideToWire,
  piSettingsToWire,
  validatePiOverride,
  validatePiSettings,
  type PiSettings,
} from './settings';

function fields(result: ReturnType<typeof validatePiSettings> | ReturnType<typeof validatePiOverride>): string[] {
  return 'errors' in result ? result.errors.map((e) => e.field) : [];
}

describe('validatePiSettings (PUT /v1/organization/pi-settings)', () => {
  it('fills every omitted field with its default: off, off, 0.57, 0.30, no patterns, fail open', () => {
    expect(validatePiSettings({})).toEqual({ settings: DEFAULT_PI_SETTINGS });
    expect(DEFAULT_PI_SETTINGS).toMatchObject({ mode: 'off', indirectMode: 'off', blockThreshold: 0.57, passThreshold: 0.3, failClosed: false });
  });

  it('reads every wire field', () => {
    const result = validatePiSettings({
      pi_mode: 'block',
      pi_indirect_mode: 'alert',
      pi_block_threshold: 0.8,
      pi_pass_threshold: 0.2,
      pi_allowlist_patterns: ['^You are Acme support\\.'],
      pi_fail_closed: true,
      pi_log_full_text_on_block: true,
      pi_input_action: 'block',
    });
    expect(result).toEqual({
      settings: { mode: 'block', indirectMode: 'alert', blockThreshold: 0.8, passThreshold: 0.2, allowlistPatterns: ['^You are Acme support\\.'], failClosed: true, logFullTextOnBlock: true },
    });
  });

  it('names every problem at once', () => {
    const result = validatePiSettings({
      pi_mode: 'on',
      pi_indirect_mode: 3,
      pi_block_threshold: 1.5,
      pi_pass_threshold: 'low',
      pi_allowlist_patterns: ['ok', '(unclosed', '', 7, '(a+)+$'],
      pi_fail_closed: 'yes',
      pi_log_full_text_on_block: null,
      pi_input_action: 'redact',
      pi_extra: 1,
    });
    expect(fields(result)).toEqual([
      'pi_extra',
      'pi_mode',
      'pi_indirect_mode',
      'pi_block_threshold',
      'pi_pass_threshold',
      'pi_allowlist_patterns[1]',
      'pi_allowlist_patterns[2]',
      'pi_allowlist_patterns[3]',
      'pi_allowlist_patterns[4]',
      'pi_fail_closed',
      'pi_log_full_text_on_block',
      'pi_input_action',
    ]);
    const messages = 'errors' in result ? result.errors.map((e) => e.message) : [];
    expect(messages[1]).toBe('must be one of off, alert, block');
    expect(messages[3]).toBe('must be a number from 0 to 1');
    expect(messages[5]).toMatch(/^is not a valid regular expression/);
    expect(messages[8]).toMatch(/catastrophic backtracking/);
  });

  it('requires the block threshold to be at least the pass threshold', () => {
    const result = validatePiSettings({ pi_block_threshold: 0.2, pi_pass_threshold: 0.4 });
    expect(result).toEqual({ errors: [{ field: 'pi_block_threshold', message: 'must be at least pi_pass_threshold (0.4)' }] });
    expect(validatePiSettings({ pi_block_threshold: 0.2 })).toEqual({ errors: [{ field: 'pi_block_threshold', message: 'must be at least pi_pass_threshold (0.3)' }] });
    expect(validatePiSettings({ pi_block_threshold: 0.4, pi_pass_threshold: 0.4 })).toHaveProperty('settings');
  });

  it('refuses a body that is not an object, and more than 100 patterns', () => {
    expect(validatePiSettings([])).toEqual({ errors: [{ field: 'body', message: 'must be a JSON object' }] });
    expect(fields(validatePiSettings({ pi_allowlist_patterns: Array.from({ length: 101 }, (_, i) => `p${i}`) }))).toEqual(['pi_allowlist_patterns']);
    expect(fields(validatePiSettings({ pi_allowlist_patterns: 'abc' }))).toEqual(['pi_allowlist_patterns']);
  });

  it('round-trips through the wire form', () => {
    const settings: PiSettings = { ...DEFAULT_PI_SETTINGS, mode: 'alert', allowlistPatterns: ['x\\d+'] };
    expect(validatePiSettings(piSettingsToWire(settings))).toEqual({ settings });
  });

  it('assertPiSettings throws naming every problem of settings built in code', () => {
    const bad = { ...DEFAULT_PI_SETTINGS, mode: 'on', blockThreshold: 2 } as unknown as PiSettings;
    expect(() => assertPiSettings(bad)).toThrow(InvalidPiSettingsError);
    expect(() => assertPiSettings(bad)).toThrow('pi_mode must be one of off, alert, block; pi_block_threshold must be a number from 0 to 1');
  });
});

describe('validatePiOverride (PUT /v1/customers/{id}/pi-settings)', () => {
  const org: PiSettings = { ...DEFAULT_PI_SETTINGS, mode: 'block', allowlistPatterns: ['^Acme:'] };

  it('treats absent and null fields as inherited; an empty body restores full inheritance', () => {
    expect(validatePiOverride({}, org)).toEqual({ override: {} });
    expect(validatePiOverride({ pi_mode: null, pi_indirect_mode: 'block' }, org)).toEqual({ override: { indirectMode: 'block' } });
  });

  it('refuses the pass threshold, which is not overridable per customer', () => {
    expect(validatePiOverride({ pi_pass_threshold: 0.1 }, org)).toEqual({ errors: [{ field: 'pi_pass_threshold', message: "is not overridable per customer: it is the organization's" }] });
  });

  it("requires the block threshold to be at least the organization's pass threshold", () => {
    expect(validatePiOverride({ pi_block_threshold: 0.1 }, org)).toEqual({ errors: [{ field: 'pi_block_threshold', message: "must be at least the organization's pi_pass_threshold (0.3)" }] });
  });

  it('applies the override over the organization, adding its allowlist patterns', () => {
    const result = validatePiOverride({ pi_mode: 'alert', pi_block_threshold: 0.9, pi_allowlist_patterns: ['^Ticket #\\d+'] }, org);
    if (!('override' in result)) throw new Error('expected an override');
    expect(applyPiOverride(org, result.override)).toEqual({ ...org, mode: 'alert', blockThreshold: 0.9, allowlistPatterns: ['^Acme:', '^Ticket #\\d+'] });
    expect(applyPiOverride(org, null)).toBe(org);
    expect(piOverrideToWire(result.override)).toEqual({
      pi_mode: 'alert',
      pi_indirect_mode: null,
      pi_block_threshold: 0.9,
      pi_allowlist_patterns: ['^Ticket #\\d+'],
      pi_fail_closed: null,
      pi_log_full_text_on_block: null,
    });
  });
});
