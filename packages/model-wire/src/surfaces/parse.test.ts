import { WireError } from '../errors';
import { checkInlineMedia } from '../estimate';
import { renderError } from '../render';
import type { Surface } from '../types';
import { parseCountTokensRequest, parseSurfaceRequest } from './parse';

function refusal(surface: Surface, body: unknown): WireError {
  try {
    parseSurfaceRequest(surface, body);
  } catch (err) {
    if (err instanceof WireError) return err;
    throw err;
  }
  throw new Error('expected a WireError');
}

const user = { role: 'user', content: 'hi' };
const fn = (name: string, parameters: unknown = { type: 'object', properties: {} }) => ({ type: 'function', function: { name, parameters } });

describe('400 codes of the spec table', () => {
  test('empty_input: native input empty', () => {
    expect(refusal('native-responses', { model: 'openai/gpt-4o', input: [] })).toMatchObject({ status: 400, code: 'empty_input', param: 'input' });
    expect(refusal('openai-responses', { model: 'gpt-4o', input: '' })).toMatchObject({ code: 'empty_input' });
    expect(refusal('openai-embeddings', { model: 'text-embedding-3-small', input: [] })).toMatchObject({ code: 'empty_input' });
  });

  test('empty_messages: chat and Anthropic messages empty', () => {
    expect(refusal('openai-chat', { model: 'gpt-4o', messages: [] })).toMatchObject({ status: 400, code: 'empty_messages', param: 'messages' });
    expect(refusal('anthropic-messages', { model: 'claude', max_tokens: 10, messages: [] })).toMatchObject({ code: 'empty_messages' });
  });

  test('invalid_input_item: a responses input message without role system, developer, user or assistant', () => {
    expect(refusal('native-responses', { input: [{ type: 'message', role: 'tool', content: 'x' }] })).toMatchObject({ code: 'invalid_input_item', param: 'input[0].role' });
    expect(refusal('openai-responses', { input: [{ role: 'robot', content: 'x' }] })).toMatchObject({ code: 'invalid_input_item' });
    expect(refusal('openai-responses', { input: [{ type: 'item_reference', id: 'msg_1' }] })).toMatchObject({ code: 'invalid_input_item' });
  });

  test('invalid_message_content: malformed content', () => {
    expect(refusal('openai-chat', { messages: [{ role: 'user', content: [{ type: 'video_url', url: 'x' }] }] })).toMatchObject({ code: 'invalid_message_content', param: 'messages[0].content[0].type' });
    expect(refusal('native-responses', { input: [{ role: 'user', content: [{ type: 'image', source_type: 'base64', data: 'AAAA' }] }] })).toMatchObject({ code: 'invalid_message_content', param: 'input[0].content[0].media_type' });
    expect(refusal('anthropic-messages', { max_tokens: 5, messages: [{ role: 'user', content: [{ type: 'tool_use', id: 'a', name: 'b', input: {} }] }] })).toMatchObject({ code: 'invalid_message_content' });
  });

  test('invalid_tool_messages: a tool result that answers no call, and a call left unanswered', () => {
    expect(refusal('openai-chat', { messages: [user, { role: 'tool', tool_call_id: 'call_9', content: 'x' }] })).toMatchObject({ code: 'invalid_tool_messages' });
    const call = { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] };
    expect(refusal('openai-chat', { messages: [user, call, user] })).toMatchObject({ code: 'invalid_tool_messages' });
    expect(refusal('openai-chat', { messages: [user, { role: 'tool', content: 'x' }] })).toMatchObject({ code: 'invalid_tool_messages' });
  });

  test('invalid_openai_responses_request: the responses payload is not an object', () => {
    expect(refusal('openai-responses', ['not', 'an', 'object'])).toMatchObject({ status: 400, code: 'invalid_openai_responses_request' });
  });

  test('invalid_request_body: a body that is not an object, or a field of the wrong type', () => {
    expect(refusal('openai-chat', 'text')).toMatchObject({ code: 'invalid_request_body' });
    expect(refusal('openai-chat', { messages: [user], temperature: 'hot' })).toMatchObject({ code: 'invalid_request_body', param: 'temperature' });
    expect(refusal('anthropic-messages', { messages: [user] })).toMatchObject({ code: 'invalid_request_body', param: 'max_tokens' });
  });

  test('invalid_response_format: response_format or text.format malformed', () => {
    expect(refusal('openai-chat', { messages: [user], response_format: { type: 'yaml' } })).toMatchObject({ code: 'invalid_response_format', param: 'response_format' });
    expect(refusal('openai-responses', { input: 'x', text: { format: { type: 'json_schema', name: 'r', schema: 'nope' } } })).toMatchObject({ code: 'invalid_response_format', param: 'text.format' });
  });

  test('invalid_thinking_budget: thinking.budget_tokens not a positive integer', () => {
    expect(refusal('anthropic-messages', { max_tokens: 10, messages: [user], thinking: { type: 'enabled', budget_tokens: -5 } })).toMatchObject({ code: 'invalid_thinking_budget', param: 'thinking.budget_tokens' });
    expect(refusal('native-responses', { input: 'x', thinking: { type: 'enabled', budget_tokens: 1.5 } })).toMatchObject({ code: 'invalid_thinking_budget' });
  });

  test('unsupported_reasoning_effort: an effort that is not none, minimal, low, medium, high, xhigh or max', () => {
    expect(refusal('openai-chat', { messages: [user], reasoning_effort: 'extreme' })).toMatchObject({ code: 'unsupported_reasoning_effort', param: 'reasoning_effort' });
    expect(refusal('openai-responses', { input: 'x', reasoning: { effort: 'ultra' } })).toMatchObject({ code: 'unsupported_reasoning_effort', param: 'reasoning.effort' });
    expect(parseSurfaceRequest('openai-chat', { messages: [user], reasoning_effort: 'max' }).request.reasoning).toEqual({ effort: 'max' });
  });

  test('invalid_tool_definition: a malformed tool or tool_choice', () => {
    expect(refusal('openai-chat', { messages: [user], tools: [{ type: 'function' }] })).toMatchObject({ code: 'invalid_tool_definition', param: 'tools[0].function' });
    expect(refusal('openai-chat', { messages: [user], tools: [fn('a'), fn('a')] })).toMatchObject({ code: 'invalid_tool_definition' });
    expect(refusal('openai-chat', { messages: [user], tool_choice: 'required' })).toMatchObject({ code: 'invalid_tool_definition' });
  });

  test('invalid_tool_name: an empty tool name', () => {
    expect(refusal('openai-chat', { messages: [user], tools: [fn('')] })).toMatchObject({ code: 'invalid_tool_name', param: 'tools[0].function.name' });
    expect(refusal('native-responses', { input: 'x', tools: [{ type: 'function', name: 'has space', parameters: {} }] })).toMatchObject({ code: 'invalid_tool_name' });
    expect(refusal('openai-chat', { messages: [user], tools: [fn('a')], tool_choice: { type: 'function', function: { name: 'b' } } })).toMatchObject({ code: 'invalid_tool_name' });
  });

  test('invalid_tool_parameters: parameters that are not a JSON Schema object', () => {
    expect(refusal('openai-chat', { messages: [user], tools: [fn('a', { type: 'string' })] })).toMatchObject({ code: 'invalid_tool_parameters', param: 'tools[0].function.parameters' });
    expect(refusal('anthropic-messages', { max_tokens: 5, messages: [user], tools: [{ name: 'a', input_schema: [1] }] })).toMatchObject({ code: 'invalid_tool_parameters' });
  });

  test('unsupported_tool_type: code_interpreter, file_search, mcp, local_shell, custom on the native endpoint', () => {
    for (const type of ['code_interpreter', 'file_search', 'mcp', 'local_shell', 'custom']) {
      expect(refusal('native-responses', { input: 'x', tools: [{ type }] })).toMatchObject({ code: 'unsupported_tool_type', param: 'tools[0].type' });
    }
    expect(refusal('openai-responses', { input: 'x', tools: [{ type: 'web_search' }] })).toMatchObject({ code: 'unsupported_tool_type' });
    expect(refusal('anthropic-messages', { max_tokens: 5, messages: [user], tools: [{ type: 'bash_20250124', name: 'bash' }] })).toMatchObject({ code: 'unsupported_tool_type' });
  });

  test('previous_response_id_unsupported and invalid_previous_response_id', () => {
    expect(refusal('openai-responses', { input: 'x', previous_response_id: 'resp_1' })).toMatchObject({ code: 'previous_response_id_unsupported', param: 'previous_response_id' });
    expect(refusal('native-responses', { input: 'x', previous_response_id: 'resp_1' })).toMatchObject({ code: 'previous_response_id_unsupported' });
    expect(refusal('openai-responses', { input: 'x', previous_response_id: 42 })).toMatchObject({ code: 'invalid_previous_response_id' });
  });

  test('conversation_unsupported: conversation sent', () => {
    expect(refusal('openai-responses', { input: 'x', conversation: 'conv_1' })).toMatchObject({ code: 'conversation_unsupported', param: 'conversation' });
    expect(refusal('native-responses', { input: 'x', conversation: { id: 'c' } })).toMatchObject({ code: 'conversation_unsupported' });
  });

  test('invalid_priority_order: 400 on compatible surfaces, 422 on the native endpoint', () => {
    expect(refusal('openai-chat', { messages: [user], priority_order: [] })).toMatchObject({ status: 400, code: 'invalid_priority_order' });
    const eleven = Array.from({ length: 11 }, (_, i) => ({ model: `m/${i}` }));
    const native = refusal('native-responses', { input: 'x', priority_order: eleven });
    expect(native).toMatchObject({ status: 422 });
    expect(native.detail![0]).toMatchObject({ type: 'invalid_priority_order', loc: ['body', 'priority_order'] });
    expect(refusal('openai-chat', { messages: [user], priority_order: [{ model: 'a/b', vendors: [] }] })).toMatchObject({ code: 'invalid_priority_order' });
    expect(refusal('openai-chat', { messages: [user], priority_order: [{ model: 'a/b' }], vendor: 'x' })).toMatchObject({ code: 'invalid_priority_order' });
  });

  test('priority_order_model_conflict: model is not the first priority_order entry', () => {
    expect(refusal('openai-chat', { model: 'a/c', messages: [user], priority_order: [{ model: 'a/b' }] })).toMatchObject({ code: 'priority_order_model_conflict' });
    expect(refusal('native-responses', { model: 'a/c', input: 'x', priority_order: [{ model: 'a/b' }] })).toMatchObject({ status: 422 });
    expect(parseSurfaceRequest('openai-chat', { model: 'a/b', messages: [user], priority_order: [{ model: 'a/b' }, { model: 'c/d', vendors: ['v'] }] }).gateway.priority_order).toHaveLength(2);
  });

  test('unsupported_params: n above 1', () => {
    expect(refusal('openai-chat', { messages: [user], n: 2 })).toMatchObject({ code: 'unsupported_params', param: 'n' });
  });
});

describe('native schema failures are 422 with a detail array', () => {
  test('a missing input, a wrong type and an unknown field are all listed', () => {
    const error = refusal('native-responses', { model: 7, temperature: 3, surprise: true });
    expect(error.status).toBe(422);
    const types = error.detail!.map((d) => `${d.type}@${d.loc.join('.')}`);
    expect(types).toEqual(expect.arrayContaining(['extra_forbidden@body.surprise', 'string_type@body.model', 'less_than_equal@body.temperature', 'missing@body.input']));
    expect(renderError('native-responses', error)).toEqual({ status: 422, body: { detail: error.detail } });
  });

  test('a valid native request parses to the canonical form, gateway fields apart', () => {
    const parsed = parseSurfaceRequest('native-responses', {
      model: 'anthropic/claude-sonnet-4',
      input: [
        { role: 'system', content: 'Be terse.' },
        { type: 'message', role: 'user', content: [{ type: 'text', text: 'Look' }, { type: 'image', source_type: 'url', media_type: 'image/png', data: 'https://example.com/a.png' }] },
      ],
      tools: [{ type: 'function', name: 'lookup', description: 'd', parameters: { type: 'object', properties: {} } }],
      tool_choice: { type: 'function', function: { name: 'lookup' } },
      max_tokens: 64,
      tags: [{ key: 'team', value: 'a' }],
      vendor: 'anthropic',
      stream: true,
    });
    expect(parsed.request.system).toEqual([{ type: 'text', text: 'Be terse.' }]);
    expect(parsed.request.messages[0]!.content[1]).toEqual({ type: 'image', source: { kind: 'url', url: 'https://example.com/a.png', mediaType: 'image/png' } });
    expect(parsed.request.toolChoice).toEqual({ type: 'tool', name: 'lookup' });
    expect(parsed.gateway).toMatchObject({ model: 'anthropic/claude-sonnet-4', vendor: 'anthropic', stream: true, tags: [{ key: 'team', value: 'a' }] });
  });
});

describe('payload_too_large (413) for inline media', () => {
  const b64 = (bytes: number) => 'A'.repeat(Math.ceil(bytes / 3) * 4);
  const withImage = (bytes: number) => parseSurfaceRequest('openai-chat', { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${b64(bytes)}` } }] }] }).request;
  const withAudio = (bytes: number) => parseSurfaceRequest('openai-chat', { messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: b64(bytes), format: 'wav' } }] }] }).request;

  test('an image over 20 MB decoded is 413 payload_too_large; 20 MB passes', () => {
    expect(() => checkInlineMedia(withImage(20 * 1024 * 1024 - 3))).not.toThrow();
    expect(() => checkInlineMedia(withImage(20 * 1024 * 1024 + 3))).toThrow(expect.objectContaining({ status: 413, code: 'payload_too_large' }));
  });

  test('audio may reach 25 MB', () => {
    expect(() => checkInlineMedia(withAudio(24 * 1024 * 1024))).not.toThrow();
    expect(() => checkInlineMedia(withAudio(26 * 1024 * 1024))).toThrow(expect.objectContaining({ status: 413, code: 'payload_too_large' }));
  });
});

describe('count_tokens', () => {
  test('needs no max_tokens', () => {
    expect(parseCountTokensRequest({ model: 'anthropic/claude-sonnet-4', messages: [user] }).request.maxOutputTokens).toBeNull();
  });
});
