import { catalogSearchableTools } from './catalog-tools';
import { toSearchResponse } from './search-response';
import { ToolIndex } from './tool-index';

describe('toSearchResponse', () => {
  it('has the response fields of the spec: tools (name, fully_qualified_name, human_name, description, input_schema, relevance_score, reasoning), total_results, intent', () => {
    const index = new ToolIndex(catalogSearchableTools());
    const intent = 'send an email';
    const body = toSearchResponse(intent, index.search(intent, { maxResults: 2 }));
    expect(Object.keys(body).sort()).toEqual(['intent', 'tools', 'total_results']);
    expect(body.intent).toBe(intent);
    expect(body.tools).toHaveLength(2);
    expect(body.total_results).toBeGreaterThanOrEqual(2);
    const first = body.tools[0]!;
    expect(Object.keys(first).sort()).toEqual(['description', 'fully_qualified_name', 'human_name', 'input_schema', 'name', 'reasoning', 'relevance_score']);
    expect(first).toMatchObject({ name: 'send_message', fully_qualified_name: 'gmail__send_message', human_name: 'Send message (Gmail)' });
    expect(first.input_schema).toMatchObject({ type: 'object', required: ['input'] });
  });
});
