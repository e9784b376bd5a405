import { BatchUsageSum } from './batch-runner';

describe('BatchUsageSum', () => {
  it('adds chat completions, responses and embeddings usage under OpenAI BatchUsage names', () => {
    const sum = new BatchUsageSum();
    sum.add({ model: 'openai/gpt-4o', usage: { prompt_tokens: 10, completion_tokens: 4, prompt_tokens_details: { cached_tokens: 6 }, completion_tokens_details: { reasoning_tokens: 2 } } });
    sum.add({ model: 'openai/gpt-4o', usage: { input_tokens: 7, output_tokens: 3, input_tokens_details: { cached_tokens: 1 }, output_tokens_details: { reasoning_tokens: 1 } } });
    sum.add({ model: 'openai/gpt-4o', usage: { prompt_tokens: 5, total_tokens: 5 } });
    expect(sum.total()).toEqual({ input_tokens: 22, input_tokens_details: { cached_tokens: 7 }, output_tokens: 7, output_tokens_details: { reasoning_tokens: 3 }, total_tokens: 29 });
    expect(sum.model()).toBe('openai/gpt-4o');
  });

  it('names no model when the answers differ, and ignores bodies without usage', () => {
    const sum = new BatchUsageSum();
    sum.add({ model: 'openai/gpt-4o', usage: { prompt_tokens: 1, completion_tokens: 1 } });
    sum.add({ model: 'anthropic/claude-sonnet-4', usage: { input_tokens: 2, output_tokens: 2 } });
    sum.add(null);
    sum.add({ object: 'list' });
    expect(sum.model()).toBeNull();
    expect(sum.total().total_tokens).toBe(6);
  });
});
