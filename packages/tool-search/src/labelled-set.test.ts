import { catalogSearchableTools } from './catalog-tools';
import { evaluateRanking, loadLabelledIntents } from './labelled-set';
import { ToolIndex } from './tool-index';

const intents = loadLabelledIntents();
const tools = catalogSearchableTools();

describe('the labelled set', () => {
  it('has at least 120 intents, split into dev and holdout', () => {
    expect(intents.length).toBeGreaterThanOrEqual(120);
    expect(intents.filter((i) => i.split === 'dev').length).toBeGreaterThanOrEqual(60);
    expect(intents.filter((i) => i.split === 'holdout').length).toBeGreaterThanOrEqual(40);
    expect(new Set(intents.map((i) => i.id)).size).toBe(intents.length);
  });

  it('expects only tools that exist in the catalog', () => {
    const known = new Set(tools.map((t) => t.fully_qualified_name));
    const unknown = intents.flatMap((i) => i.expected).filter((name) => !known.has(name));
    expect(unknown).toEqual([]);
  });

  it('covers every connector and most tools', () => {
    const expected = new Set(intents.flatMap((i) => i.expected));
    expect(new Set(tools.filter((t) => expected.has(t.fully_qualified_name)).map((t) => t.connector_slug))).toEqual(new Set(tools.map((t) => t.connector_slug)));
    expect(expected.size / tools.length).toBeGreaterThanOrEqual(0.9);
  });
});

describe('ranking accuracy on the labelled set', () => {
  const evaluation = evaluateRanking(new ToolIndex(tools), intents);

  it('puts an expected tool in the top 5 for at least 90% of the intents', () => {
    expect(evaluation.overall.top5).toBeGreaterThanOrEqual(0.9);
  });

  it('holds at least 90% top-5 on the holdout split, which tuning never looked at', () => {
    expect(evaluation.splits.holdout.top5).toBeGreaterThanOrEqual(0.9);
  });
});
