import { parseSurfaceRequest } from '../surfaces/parse';
import type { CanonicalStreamEvent, VendorTarget } from '../types';
import { buildResponsesBody, openAIResponsesAdapter } from './openai-responses';

const target: VendorTarget = { dialect: 'openai-responses', baseUrl: 'https://api.openai.com/v1', apiKey: 'sk-test', vendorModel: 'o3-mini', vendor: 'openai', model: 'openai/o3-mini' };
const headers = { get: () => null } as never;

describe('OpenAI Responses dialect', () => {
  test('a responses request goes out as Responses: instructions, items, encrypted reasoning handed back, nothing stored at the vendor', () => {
    const parsed = parseSurfaceRequest('openai-responses', {
      model: 'openai/o3-mini',
      instructions: 'Be brief.',
      input: [
        { role: 'user', content: 'hi' },
        { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAA-opaque' },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'sunny' },
      ],
      tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }],
      reasoning: { effort: 'low' },
    });
    const body = buildResponsesBody(target, parsed.request, false);
    expect(body).toMatchObject({ model: 'o3-mini', instructions: 'Be brief.', store: false, include: ['reasoning.encrypted_content'], reasoning: { effort: 'low' } });
    expect(body.input).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
      { type: 'reasoning', summary: [], encrypted_content: 'gAAAA-opaque' },
      { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'sunny' },
    ]);
    expect(body.tools).toEqual([{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }]);
  });

  test('an answer keeps its encrypted reasoning as OpenAI reasoning, its text and usage', () => {
    const answer = openAIResponsesAdapter.parseAnswer(
      {
        id: 'resp_v',
        model: 'o3-mini',
        status: 'completed',
        output: [
          { type: 'reasoning', id: 'rs_v', summary: [], encrypted_content: 'gAAAA-v' },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hello' }] },
        ],
        usage: { input_tokens: 5, input_tokens_details: { cached_tokens: 1 }, output_tokens: 7, output_tokens_details: { reasoning_tokens: 4 } },
      },
      target,
      headers,
    );
    expect(answer.output).toEqual([
      { type: 'redacted_thinking', data: 'gAAAA-v', origin: 'openai' },
      { type: 'text', text: 'Hello' },
    ]);
    expect(answer.finishReason).toBe('stop');
    expect(answer.usage).toMatchObject({ inputTokens: 5, cachedInputTokens: 1, outputTokens: 7, reasoningTokens: 4 });
  });

  test('the event stream becomes canonical events ending in one finish; a stream cut before response.completed fails', () => {
    const decoder = openAIResponsesAdapter.streamDecoder(target, headers);
    const out: CanonicalStreamEvent[] = [];
    const send = (data: unknown) => decoder.frame({ event: null, data: JSON.stringify(data) }, out);
    send({ type: 'response.output_item.added', output_index: 0, item: { type: 'reasoning' } });
    send({ type: 'response.output_item.done', output_index: 0, item: { type: 'reasoning', encrypted_content: 'gAAAA-s' } });
    send({ type: 'response.output_text.delta', output_index: 1, delta: 'Hel' });
    send({ type: 'response.output_text.delta', output_index: 1, delta: 'lo' });
    send({ type: 'response.output_item.added', output_index: 2, item: { type: 'function_call', call_id: 'call_9', name: 'f' } });
    send({ type: 'response.function_call_arguments.delta', output_index: 2, delta: '{}' });
    send({ type: 'response.completed', response: { id: 'resp_s', status: 'completed', output: [], usage: { input_tokens: 3, output_tokens: 2 } } });
    decoder.end(out);
    expect(out.map((e) => e.type)).toEqual(['redacted_thinking', 'text_delta', 'text_delta', 'tool_call_start', 'tool_call_delta', 'finish']);
    expect(out[out.length - 1]).toMatchObject({ finishReason: 'tool_use', usage: { inputTokens: 3, outputTokens: 2 }, providerRequestId: 'resp_s' });
    const cut = openAIResponsesAdapter.streamDecoder(target, headers);
    expect(() => cut.end([])).toThrow(/before response.completed/);
  });
});
