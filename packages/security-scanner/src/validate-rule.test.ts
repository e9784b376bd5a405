import { validateRule } from './validate-rule';

const valid = { name: 'Block cloud keys', detector: 'SECRET', direction: 'inbound', action: 'block' };
const custom = { name: 'Employee ids', detector: 'CUSTOM', pattern: 'EMP-\\d{6}', label: 'EMPLOYEE_ID', direction: 'both', action: 'redact' };

function errorsOf(input: unknown): Array<{ field: string; message: string }> {
  const result = validateRule(input);
  if (!('errors' in result)) throw new Error(`expected errors, got ${JSON.stringify(result)}`);
  return result.errors;
}

function fieldsOf(input: unknown): string[] {
  return errorsOf(input).map((e) => e.field);
}

describe('validateRule', () => {
  it('accepts a built-in rule and defaults enabled to true', () => {
    expect(validateRule(valid)).toEqual({ rule: { ...valid, enabled: true } });
  });

  it('accepts a custom rule with its pattern, flags and label', () => {
    expect(validateRule({ ...custom, flags: 'i', enabled: false })).toEqual({ rule: { ...custom, flags: 'i', enabled: false } });
  });

  it('ignores an id in the input: the server assigns it', () => {
    expect(validateRule({ ...valid, id: 'x' })).toEqual({ rule: { ...valid, enabled: true } });
  });

  it('refuses a value that is not an object', () => {
    expect(fieldsOf(null)).toEqual(['rule']);
    expect(fieldsOf([valid])).toEqual(['rule']);
  });

  it('refuses an unknown detector', () => {
    expect(errorsOf({ ...valid, detector: 'PASSPORT' })).toEqual([{ field: 'detector', message: expect.stringContaining('EMAIL_ADDRESS') }]);
  });

  it('refuses a missing or unknown direction and action', () => {
    expect(fieldsOf({ ...valid, direction: 'sideways', action: undefined })).toEqual(['direction', 'action']);
  });

  it('refuses a missing name, a name too long and a non-boolean enabled', () => {
    expect(fieldsOf({ ...valid, name: '  ' })).toEqual(['name']);
    expect(fieldsOf({ ...valid, name: 'x'.repeat(256) })).toEqual(['name']);
    expect(fieldsOf({ ...valid, enabled: 'yes' })).toEqual(['enabled']);
  });

  it('refuses unknown fields', () => {
    expect(fieldsOf({ ...valid, acton: 'block' })).toEqual(['acton']);
  });

  it('refuses a CUSTOM rule without a pattern or a label', () => {
    expect(fieldsOf({ ...custom, pattern: undefined, label: undefined })).toEqual(['label', 'pattern']);
  });

  it('refuses a label outside [A-Z0-9_]{1,40}', () => {
    expect(fieldsOf({ ...custom, label: 'employee-id' })).toEqual(['label']);
    expect(fieldsOf({ ...custom, label: 'X'.repeat(41) })).toEqual(['label']);
  });

  it('refuses a pattern, flags or label on a built-in rule', () => {
    expect(fieldsOf({ ...valid, pattern: 'x', flags: 'i', label: 'X' })).toEqual(['pattern', 'flags', 'label']);
  });

  it('reads empty or null pattern, flags and label on a built-in rule as absent', () => {
    expect(validateRule({ ...valid, pattern: null, flags: '', label: null })).toEqual({ rule: { ...valid, enabled: true } });
  });

  it('refuses an invalid regular expression', () => {
    expect(errorsOf({ ...custom, pattern: 'EMP-(\\d+' })).toEqual([{ field: 'pattern', message: expect.stringContaining('Not a valid regular expression') }]);
  });

  it('refuses unknown or repeated flags', () => {
    expect(fieldsOf({ ...custom, flags: 'g' })).toEqual(['flags']);
    expect(fieldsOf({ ...custom, flags: 'ii' })).toEqual(['flags']);
  });

  it('refuses a pattern over 500 characters', () => {
    expect(errorsOf({ ...custom, pattern: 'a'.repeat(501) })).toEqual([{ field: 'pattern', message: 'Use at most 500 characters.' }]);
  });

  it('refuses a pattern that matches the empty string', () => {
    expect(fieldsOf({ ...custom, pattern: '\\d*' })).toEqual(['pattern']);
  });

  it.each(['(a+)+$', '(a|a)*', '(.*a){20}'])('refuses %s as at risk of catastrophic backtracking', (pattern) => {
    expect(errorsOf({ ...custom, pattern })).toContainEqual({ field: 'pattern', message: expect.stringContaining('exponential time') });
  });

  it('reports every problem at once', () => {
    expect(fieldsOf({ detector: 'CUSTOM', pattern: '(a+)+', direction: 'up' })).toEqual(['name', 'direction', 'action', 'label', 'pattern']);
  });
});
