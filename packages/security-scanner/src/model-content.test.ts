import { scanModelOutput, scanModelRequest } from './model-content';
import { Scanner } from './scanner';
import type { SecurityRule } from './types';

function rule(fields: Partial<SecurityRule> & Pick<SecurityRule, 'id' | 'detector'>): SecurityRule {
  return { name: `${fields.detector} rule`, direction: 'both', action: 'redact', enabled: true, ...fields };
}

const EMAIL = 'alice@example.com';
const AWS_KEY = 'AKIAIOSFODNN7EXAMPLE';

// The canonical request shape of @patchbay/model-wire (system text blocks, turns of content blocks).
function request() {
  return {
    system: [{ type: 'text', text: 'You are the support assistant of Acme.' }],
    messages: [
      { role: 'user', content: [{ type: 'text', text: `My email is ${EMAIL}, please update my account.` }] },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'call_1', name: 'update_account', input: { email: EMAIL, plan: 'pro' }, inputJson: `{"email":"${EMAIL}","plan":"pro"}` }],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', toolUseId: 'call_1', isError: false, content: [{ type: 'text', text: `updated; deploy key ${AWS_KEY}` }] }],
      },
      { role: 'user', content: [{ type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } }] },
    ],
    tools: [],
    stream: false,
  };
}

describe('scanModelRequest: data-loss prevention on prompts (inbound rules)', () => {
  it('redacts user text, tool-call arguments and tool results, and names each place by its canonical path', () => {
    const scanner = new Scanner([rule({ id: 'r-email', detector: 'EMAIL_ADDRESS' }), rule({ id: 'r-secret', detector: 'SECRET' })]);
    const input = request();
    const result = scanModelRequest(scanner, input);

    const messages = result.value.messages as ReturnType<typeof request>['messages'];
    expect(messages[0]!.content[0]).toEqual({ type: 'text', text: 'My email is [REDACTED:EMAIL_ADDRESS], please update my account.' });
    expect(messages[1]!.content[0]).toMatchObject({ input: { email: '[REDACTED:EMAIL_ADDRESS]', plan: 'pro' }, inputJson: '{"email":"[REDACTED:EMAIL_ADDRESS]","plan":"pro"}' });
    expect(messages[2]!.content[0]).toMatchObject({ content: [{ type: 'text', text: 'updated; deploy key [REDACTED:SECRET]' }] });
    expect(result.detections.map((d) => [d.rule_id, d.path, d.direction])).toEqual([
      ['r-email', '$.messages[0].content[0].text', 'inbound'],
      ['r-email', '$.messages[1].content[0].input.email', 'inbound'],
      ['r-secret', '$.messages[2].content[0].content[0].text', 'inbound'],
    ]);
    expect(result.blocked).toBeNull();
  });

  it('never mutates the request, shares untouched turns, and returns the request itself when nothing matched', () => {
    const scanner = new Scanner([rule({ id: 'r-email', detector: 'EMAIL_ADDRESS' })]);
    const input = request();
    const snapshot = JSON.stringify(input);
    const result = scanModelRequest(scanner, input);
    expect(JSON.stringify(input)).toBe(snapshot);
    expect(result.value.system).toBe(input.system);
    expect(result.value.messages[3]).toBe(input.messages[3]);
    expect(result.value.messages[2]).toBe(input.messages[2]);

    const clean = { ...input, messages: [input.messages[3]!] };
    expect(scanModelRequest(scanner, clean).value).toBe(clean);
  });

  it('reports the first block rule in request order', () => {
    const scanner = new Scanner([rule({ id: 'r-secret', name: 'No cloud keys', detector: 'SECRET', action: 'block' }), rule({ id: 'r-email', detector: 'EMAIL_ADDRESS' })]);
    const result = scanModelRequest(scanner, request());
    expect(result.blocked).toEqual({ rule_id: 'r-secret', rule_name: 'No cloud keys', kind: 'SECRET' });
    expect(result.detections.map((d) => d.action)).toEqual(['redact', 'redact', 'block']);
  });

  it('applies inbound rules only to prompts', () => {
    const scanner = new Scanner([rule({ id: 'r-email', detector: 'EMAIL_ADDRESS', direction: 'outbound' })]);
    expect(scanModelRequest(scanner, request()).detections).toEqual([]);
  });
});

describe('scanModelOutput: data-loss prevention on answers (outbound rules)', () => {
  it('redacts answer text and tool-call arguments, leaving thinking untouched', () => {
    const scanner = new Scanner([rule({ id: 'r-email', detector: 'EMAIL_ADDRESS', direction: 'outbound' })]);
    const thinking = { type: 'thinking', thinking: `the user is ${EMAIL}`, signature: 'sig' };
    const output = [thinking, { type: 'text', text: `Contact ${EMAIL}.` }, { type: 'tool_use', id: 't', name: 'send', input: { to: EMAIL } }];
    const result = scanModelOutput(scanner, output);
    expect(result.value[0]).toBe(thinking);
    expect(result.value[1]).toEqual({ type: 'text', text: 'Contact [REDACTED:EMAIL_ADDRESS].' });
    expect(result.value[2]).toEqual({ type: 'tool_use', id: 't', name: 'send', input: { to: '[REDACTED:EMAIL_ADDRESS]' } });
    expect(result.detections.map((d) => d.path)).toEqual(['$.output[1].text', '$.output[2].input.to']);
  });

  it('applies outbound rules only to answers', () => {
    const scanner = new Scanner([rule({ id: 'r-email', detector: 'EMAIL_ADDRESS', direction: 'inbound' })]);
    const output = [{ type: 'text', text: `Contact ${EMAIL}.` }];
    const result = scanModelOutput(scanner, output);
    expect(result.value).toBe(output);
    expect(result.detections).toEqual([]);
  });
});
