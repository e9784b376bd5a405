import { validateSearchRequest } from './validate-request';

const errorsOf = (body: unknown) => {
  const result = validateSearchRequest(body);
  return 'errors' in result ? result.errors : [];
};

describe('validateSearchRequest', () => {
  it('accepts an intent alone, with max_results 10 and no connector filter', () => {
    expect(validateSearchRequest({ intent: 'send an email' })).toEqual({ intent: 'send an email', connector_slugs: null, max_results: 10 });
  });

  it('accepts every field of the spec', () => {
    expect(validateSearchRequest({ intent: 'create an issue', connector_slugs: ['jira', 'linear'], max_results: 50 })).toEqual({
      intent: 'create an issue',
      connector_slugs: ['jira', 'linear'],
      max_results: 50,
    });
  });

  describe('intent', () => {
    it('is required', () => {
      expect(errorsOf({})).toEqual([{ field: 'body.intent', message: 'is required' }]);
      expect(errorsOf({ intent: null })).toEqual([{ field: 'body.intent', message: 'is required' }]);
    });

    it('must be a string', () => {
      expect(errorsOf({ intent: 42 })).toEqual([{ field: 'body.intent', message: 'must be a string' }]);
    });

    it('must not be empty', () => {
      expect(errorsOf({ intent: '   ' })).toEqual([{ field: 'body.intent', message: 'must not be empty' }]);
    });

    it('may be 500 characters long, not 501', () => {
      expect(errorsOf({ intent: 'a'.repeat(500) })).toEqual([]);
      expect(errorsOf({ intent: 'a'.repeat(501) })).toEqual([{ field: 'body.intent', message: 'must be at most 500 characters' }]);
    });

    it('counts characters, not UTF-16 units: 500 emoji are 500 characters', () => {
      expect(errorsOf({ intent: '📅'.repeat(500) })).toEqual([]);
    });
  });

  describe('connector_slugs', () => {
    it('must be an array of strings', () => {
      const expected = [{ field: 'body.connector_slugs', message: 'must be an array of connector slugs (non-empty strings)' }];
      expect(errorsOf({ intent: 'x', connector_slugs: 'jira' })).toEqual(expected);
      expect(errorsOf({ intent: 'x', connector_slugs: ['jira', 3] })).toEqual(expected);
      expect(errorsOf({ intent: 'x', connector_slugs: [''] })).toEqual(expected);
    });

    it('null or an empty array means no filter; duplicates are dropped', () => {
      expect(validateSearchRequest({ intent: 'x', connector_slugs: null })).toMatchObject({ connector_slugs: null });
      expect(validateSearchRequest({ intent: 'x', connector_slugs: [] })).toMatchObject({ connector_slugs: null });
      expect(validateSearchRequest({ intent: 'x', connector_slugs: ['jira', 'jira'] })).toMatchObject({ connector_slugs: ['jira'] });
    });
  });

  describe('max_results', () => {
    it('is 1 to 50', () => {
      expect(validateSearchRequest({ intent: 'x', max_results: 1 })).toMatchObject({ max_results: 1 });
      expect(validateSearchRequest({ intent: 'x', max_results: 50 })).toMatchObject({ max_results: 50 });
      for (const bad of [0, 51, -1]) {
        expect(errorsOf({ intent: 'x', max_results: bad })).toEqual([{ field: 'body.max_results', message: 'must be a whole number from 1 to 50' }]);
      }
    });

    it('must be a whole number, not a string or a fraction', () => {
      for (const bad of ['10', 2.5, true]) {
        expect(errorsOf({ intent: 'x', max_results: bad })).toEqual([{ field: 'body.max_results', message: 'must be a whole number from 1 to 50' }]);
      }
    });

    it('defaults to 10 when null', () => {
      expect(validateSearchRequest({ intent: 'x', max_results: null })).toMatchObject({ max_results: 10 });
    });
  });

  it('refuses fields the spec does not have', () => {
    expect(errorsOf({ intent: 'x', query: 'y' })).toEqual([{ field: 'body.query', message: 'is not a field of a search request (intent, connector_slugs, max_results)' }]);
  });

  it('reports every problem at once', () => {
    expect(errorsOf({ connector_slugs: 'slack', max_results: 100 }).map((e) => e.field)).toEqual(['body.intent', 'body.connector_slugs', 'body.max_results']);
  });

  it('refuses a body that is not a JSON object', () => {
    for (const body of [null, 'send an email', ['intent'], 3]) {
      expect(errorsOf(body)).toEqual([{ field: 'body', message: 'must be a JSON object with intent, and optionally connector_slugs and max_results' }]);
    }
  });
});
