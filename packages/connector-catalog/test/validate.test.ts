import { validateToolArguments } from '../src/core/validate';

describe('validateToolArguments', () => {
  it('validates against a schema that declares JSON Schema 2020-12, as MCP 2026-07-28 servers on the v2 SDK send them', () => {
    const tool = {
      input_schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { query: { type: 'string' } }, required: ['query'], additionalProperties: false },
    };
    expect(validateToolArguments(tool, { query: 'x' })).toEqual([]);
    expect(validateToolArguments(tool, {})).toEqual(['query is required']);
  });

  it('still validates draft-07 schemas and schemas that declare none', () => {
    const tool = { input_schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } };
    expect(validateToolArguments(tool, { n: 1 })).toEqual([]);
    expect(validateToolArguments(tool, { n: 'a' })).toEqual(['n must be integer']);
  });
});
