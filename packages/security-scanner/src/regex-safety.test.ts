import { catastrophicBacktrackingRisk } from './regex-safety';

describe('catastrophicBacktrackingRisk', () => {
  it.each([
    ['(a+)+$', 'nested quantifier'],
    ['(a*)*b', 'nested quantifier'],
    ['(.*a){20}', 'nested quantifier'],
    ['(?:\\d+)+x', 'nested quantifier'],
    ['(-?\\d+)+$', 'nested quantifier'],
    ['(a?a)+b', 'nested quantifier'],
    ['((a+)b)+', 'nested quantifier'],
    ['([a-z]+[a-z0-9]*,)+', 'nested quantifier'],
    ['(a+b?)+$', 'nested quantifier'],
    ['(\\d+\\.?)+$', 'nested quantifier'],
    ['(\\w+\\s?)+$', 'nested quantifier'],
    ['(a|a)*', 'overlapping alternation'],
    ['(a|ab)+c', 'overlapping alternation'],
    ['(\\w|\\d)+$', 'overlapping alternation'],
    ['(?:x(?:A|a))+', 'overlapping alternation'],
    ['(a|)*', 'empty branch'],
    ['(a)(\\1b)+', 'backreference'],
  ])('flags %s', (pattern, reason) => {
    expect(catastrophicBacktrackingRisk(pattern, pattern === '(?:x(?:A|a))+' ? 'i' : '')).toContain(reason);
  });

  it.each([
    'EMP-\\d{6}',
    '\\b(?:ACME|acme)-[0-9]{4,8}\\b',
    '(\\d{1,3}\\.){3}\\d{1,3}',
    '([a-z]+,)+',
    '(,[a-z]+)+',
    '(\\s*,\\s*\\w+)+',
    '(?:[A-Z]\\w*\\s)+',
    '(foo|bar)+',
    '(?:[A-Z]{2}\\d{2}){2}',
    'password\\s*[:=]\\s*\\S+',
    '[^@\\s]+@corp\\.example',
    '(?<year>\\d{4})-(?<month>\\d{2})',
    '(?<=id=)\\w+',
    'a{2,}b',
  ])('accepts %s', (pattern) => {
    expect(catastrophicBacktrackingRisk(pattern)).toBeNull();
  });

  it('treats case-insensitive letters as the same character', () => {
    expect(catastrophicBacktrackingRisk('(a|A)+')).toBeNull();
    expect(catastrophicBacktrackingRisk('(a|A)+', 'i')).toContain('overlapping alternation');
  });
});
