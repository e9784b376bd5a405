import { createOpenAI } from '@ai-sdk/openai';
import * as ai from 'ai';
import OpenAI from 'openai';
import { pgPool } from '@patchbay/db';
import { TEST_DATABASE_URL } from '@patchbay/testing';
import { DB_SCHEMA } from '../src/config';
import { call, createKey, createOrg, startHarness, type Harness, type TestOrg } from './harness';

/**
 * Stored responses (issue 27 §3) through the edge router with the official clients unmodified: the
 * OpenAI-compatible surface stores by default as OpenAI does; the native surface only when the
 * organization turns the store on and the request sends store: true.
 */
let h: Harness;
let pool: ReturnType<typeof pgPool>;
let org: TestOrg;
let key: string;
let openai: OpenAI;

beforeAll(async () => {
  h = await startHarness();
  pool = pgPool(TEST_DATABASE_URL, DB_SCHEMA, 2);
  org = await createOrg(h);
  key = (await createKey(h, org)).key;
  openai = new OpenAI({ apiKey: key, baseURL: `${h.edgeUrl}/v1/openai`, maxRetries: 0 });
}, 240_000);

afterAll(async () => {
  await pool?.end();
  await h?.close();
});

beforeEach(() => h.openai.reset());

/** OpenAI's view of the last request on its Responses API (where the gateway sends the responses surfaces). */
function lastVendorResponsesBody(): { input: Array<Record<string, unknown>> } & Record<string, unknown> {
  const requests = h.openai.requests.filter((r) => r.path.endsWith('/responses'));
  return requests[requests.length - 1]!.json as { input: Array<Record<string, unknown>> } & Record<string, unknown>;
}

/** The messages of that request, as role and text. */
function lastVendorMessages(): Array<{ role: string; content: unknown }> {
  return lastVendorResponsesBody().input.filter((item) => item.type === 'message') as Array<{ role: string; content: unknown }>;
}

function text(content: unknown): string {
  if (typeof content === 'string') return content;
  return (content as Array<{ text?: string }>).map((p) => p.text ?? '').join('');
}

describe('the OpenAI surface (/v1/openai/responses)', () => {
  test('responses.create stores by default; retrieve returns it; previous_response_id resumes the stored turn', async () => {
    h.openai.script({ text: 'Nice to meet you, Ada.' });
    const first = await openai.responses.create({ model: 'openai/gpt-4o', instructions: 'Be brief.', input: 'My name is Ada.' });
    expect((first as unknown as { store: boolean }).store).toBe(true);
    expect(first.output_text).toBe('Nice to meet you, Ada.');

    const retrieved = await openai.responses.retrieve(first.id);
    expect(retrieved.id).toBe(first.id);
    expect(retrieved.output_text).toBe('Nice to meet you, Ada.');

    h.openai.script({ text: 'Your name is Ada.' });
    const second = await openai.responses.create({ model: 'openai/gpt-4o', previous_response_id: first.id, input: 'What is my name?' });
    expect(second.output_text).toBe('Your name is Ada.');
    expect(second.previous_response_id).toBe(first.id);
    const sent = lastVendorMessages().map((m) => [m.role, text(m.content)]);
    // The earlier turn reached the vendor; instructions are not carried over (as at OpenAI).
    expect(sent).toEqual([
      ['user', 'My name is Ada.'],
      ['assistant', 'Nice to meet you, Ada.'],
      ['user', 'What is my name?'],
    ]);
  });

  test('responses.delete ends the chain: retrieve is 404 response_not_found, previous_response_id is 400 previous_response_id_unsupported', async () => {
    h.openai.script({ text: 'Stored.' });
    const turn = await openai.responses.create({ model: 'openai/gpt-4o', input: 'keep this' });
    await openai.responses.delete(turn.id);
    const raw = await call(h.edgeUrl, key, 'DELETE', `/v1/openai/responses/${turn.id}`);
    expect(raw.status).toBe(404);

    const retrieve = await openai.responses.retrieve(turn.id).catch((err: unknown) => err);
    expect(retrieve).toBeInstanceOf(OpenAI.NotFoundError);
    expect((retrieve as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('response_not_found');

    const resume = await openai.responses.create({ model: 'openai/gpt-4o', previous_response_id: turn.id, input: 'and?' }).catch((err: unknown) => err);
    expect(resume).toBeInstanceOf(OpenAI.BadRequestError);
    expect((resume as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('previous_response_id_unsupported');
  });

  test('store: false stores nothing: the id is unknown afterwards', async () => {
    h.openai.script({ text: 'Not kept.' });
    const turn = await openai.responses.create({ model: 'openai/gpt-4o', input: 'forget this', store: false });
    expect((turn as unknown as { store: boolean }).store).toBe(false);
    expect((await call(h.edgeUrl, key, 'GET', `/v1/openai/responses/${turn.id}`)).status).toBe(404);
  });

  test('streamed turns are stored too, and resumed', async () => {
    h.openai.script({ text: 'Streamed answer.' });
    const stream = openai.responses.stream({ model: 'openai/gpt-4o', input: 'stream me' });
    const final = await stream.finalResponse();
    expect((final as unknown as { store: boolean }).store).toBe(true);
    const retrieved = await openai.responses.retrieve(final.id);
    expect(retrieved.output_text).toBe('Streamed answer.');
    h.openai.script({ text: 'ok' });
    await openai.responses.create({ model: 'openai/gpt-4o', previous_response_id: final.id, input: 'next' });
    expect(lastVendorMessages().map((m) => text(m.content))).toEqual(['stream me', 'Streamed answer.', 'next']);
  });

  test("the ai SDK's default multi-turn flow (item_reference items) works unmodified", async () => {
    const bodies: Array<Record<string, unknown>> = [];
    const provider = createOpenAI({
      apiKey: key,
      baseURL: `${h.edgeUrl}/v1/openai`,
      // Only watches what the SDK sends; the request goes out unchanged.
      fetch: async (input, init) => {
        if (typeof init?.body === 'string') bodies.push(JSON.parse(init.body) as Record<string, unknown>);
        return fetch(input, init);
      },
    });
    const model = provider('openai/gpt-4o');
    h.openai.script({ text: 'Hello Ada!' });
    const first = await ai.generateText({ model, messages: [{ role: 'user', content: 'I am Ada.' }] });
    expect(first.text).toBe('Hello Ada!');
    h.openai.script({ text: 'You are Ada.' });
    const second = await ai.generateText({ model, messages: [{ role: 'user', content: 'I am Ada.' }, ...first.response.messages, { role: 'user', content: 'Who am I?' }] });
    expect(second.text).toBe('You are Ada.');
    // The SDK referred to the first answer by its item id; the gateway sent the item itself to the vendor.
    const input = bodies[1]!.input as Array<Record<string, unknown>>;
    expect(input.some((item) => item.type === 'item_reference')).toBe(true);
    expect(lastVendorMessages().map((m) => [m.role, text(m.content)])).toEqual([
      ['user', 'I am Ada.'],
      ['assistant', 'Hello Ada!'],
      ['user', 'Who am I?'],
    ]);
  });

  test("the ai SDK's streamed multi-turn flow with a tool call refers to stored items and works unmodified", async () => {
    const provider = createOpenAI({ apiKey: key, baseURL: `${h.edgeUrl}/v1/openai` });
    const model = provider('openai/gpt-4o');
    const tools = { get_weather: ai.tool({ description: 'Weather for a city', inputSchema: ai.jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }), execute: async ({ city }) => `sunny in ${city}` }) };
    h.openai.script({ toolCalls: [{ name: 'get_weather', arguments: '{"city":"Paris"}' }] }, { text: 'It is sunny in Paris.' });
    const first = ai.streamText({ model, tools, stopWhen: ai.stepCountIs(2), messages: [{ role: 'user', content: 'Weather in Paris?' }] });
    expect(await first.text).toBe('It is sunny in Paris.');
    const history = (await first.response).messages;
    h.openai.script({ text: 'You asked about Paris.' });
    const second = ai.streamText({ model, tools, messages: [{ role: 'user', content: 'Weather in Paris?' }, ...history, { role: 'user', content: 'Which city did I ask about?' }] });
    expect(await second.text).toBe('You asked about Paris.');
    const input = lastVendorResponsesBody().input;
    expect(input.map((item) => item.type)).toEqual(['message', 'function_call', 'function_call_output', 'message', 'message']);
    expect(input[1]).toMatchObject({ name: 'get_weather', arguments: '{"city":"Paris"}' });
  });

  test('an item_reference to an item that is not stored is 400 invalid_input_item', async () => {
    const res = await call(h.edgeUrl, key, 'POST', '/v1/openai/responses', { model: 'openai/gpt-4o', input: [{ type: 'item_reference', id: `msg_${'0'.repeat(32)}_0` }, { role: 'user', content: 'hi' }] });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_input_item');
  });

  test('previous_response_id not a string is 400 invalid_previous_response_id; conversation is 400 conversation_unsupported', async () => {
    const notString = await call(h.edgeUrl, key, 'POST', '/v1/openai/responses', { model: 'openai/gpt-4o', input: 'hi', previous_response_id: 42 });
    expect(notString.status).toBe(400);
    expect(notString.body.error.code).toBe('invalid_previous_response_id');
    const conversation = await openai.responses.create({ model: 'openai/gpt-4o', input: 'hi', conversation: 'conv_123' }).catch((err: unknown) => err);
    expect((conversation as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('conversation_unsupported');
  });
});

describe('responses reach OpenAI as Responses (issue 27 §5)', () => {
  test('a /v1/openai/responses request routed to OpenAI is sent to its Responses API, not Chat Completions, storing nothing at the vendor', async () => {
    h.openai.script({ text: 'via responses' });
    const answer = await openai.responses.create({ model: 'openai/gpt-4o', instructions: 'Be brief.', input: 'hello', store: false });
    expect(answer.output_text).toBe('via responses');
    expect(h.openai.requests.map((r) => r.path)).toEqual(['/v1/responses']);
    const body = lastVendorResponsesBody();
    expect(body).toMatchObject({ model: 'gpt-4o', instructions: 'Be brief.', store: false, include: ['reasoning.encrypted_content'] });
  });

  test("reasoning items keep their encrypted content both ways: the vendor's encrypted reasoning reaches the client and is handed back on the next turn", async () => {
    h.openai.script({ text: 'thought it through', thinking: 'step one' });
    const first = await openai.responses.create({ model: 'openai/o3-mini', input: 'think', reasoning: { effort: 'low' }, store: false });
    const reasoning = first.output.find((item) => item.type === 'reasoning') as { encrypted_content?: string } | undefined;
    expect(reasoning?.encrypted_content).toMatch(/^gAAAA/);
    // Stateless multi-turn (store: false): the client sends the output items back; the vendor verifies its own reasoning.
    h.openai.script({ text: 'second answer' });
    const second = await openai.responses.create({ model: 'openai/o3-mini', input: [...(first.output as never[]), { role: 'user', content: 'and then?' }], store: false });
    expect(second.output_text).toBe('second answer');
    const handedBack = lastVendorResponsesBody().input.find((item) => item.type === 'reasoning');
    expect(handedBack).toEqual({ type: 'reasoning', summary: [], encrypted_content: reasoning!.encrypted_content });
  });

  test("previous_response_id on an OpenAI route is resolved by the gateway, never forwarded: the vendor gets the stored turn (its encrypted reasoning included) with store: false and no previous_response_id; retrieve and delete are the gateway's", async () => {
    h.openai.script({ text: 'Noted: the code is 7.', thinking: 'remember seven' });
    const first = await openai.responses.create({ model: 'openai/o3-mini', input: 'The code is 7.', reasoning: { effort: 'low' } });
    const reasoning = first.output.find((item) => item.type === 'reasoning') as { encrypted_content?: string } | undefined;
    expect(reasoning?.encrypted_content).toMatch(/^gAAAA/);
    // The gateway's own id: the vendor's response id is not what the client holds.
    const vendorFirst = lastVendorResponsesBody();
    expect(vendorFirst).toMatchObject({ store: false });

    h.openai.script({ text: 'The code is 7.' });
    const second = await openai.responses.create({ model: 'openai/o3-mini', previous_response_id: first.id, input: 'What is the code?' });
    expect(second.output_text).toBe('The code is 7.');
    expect(second.previous_response_id).toBe(first.id);
    const sent = lastVendorResponsesBody();
    expect(sent.previous_response_id).toBeUndefined();
    expect(sent.store).toBe(false);
    expect(sent.input.find((item) => item.type === 'reasoning')).toEqual({ type: 'reasoning', summary: [], encrypted_content: reasoning!.encrypted_content });
    expect(lastVendorMessages().map((m) => [m.role, text(m.content)])).toEqual([
      ['user', 'The code is 7.'],
      ['assistant', 'Noted: the code is 7.'],
      ['user', 'What is the code?'],
    ]);
    // Nothing else reached the vendor: no retrieve, no delete, no second store there.
    expect(h.openai.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/responses', 'POST /v1/responses']);

    const retrieved = await openai.responses.retrieve(second.id);
    expect([retrieved.id, retrieved.output_text, retrieved.previous_response_id]).toEqual([second.id, 'The code is 7.', first.id]);
    await openai.responses.delete(second.id);
    expect(await openai.responses.retrieve(second.id).catch((err: unknown) => (err as { status?: number }).status)).toBe(404);
    // Deleting a turn ends that turn's chain only: the first turn still resumes.
    h.openai.script({ text: 'Still 7.' });
    expect((await openai.responses.create({ model: 'openai/o3-mini', previous_response_id: first.id, input: 'Again?' })).output_text).toBe('Still 7.');
    expect(h.openai.requests.every((r) => r.method === 'POST' && r.path === '/v1/responses')).toBe(true);
  });

  test('the native surface routed to OpenAI goes to its Responses API too, streamed', async () => {
    h.openai.script({ text: 'native via responses' });
    const res = await fetch(`${h.edgeUrl}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'openai/gpt-4o', stream: true, input: 'stream it' }) });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('native via responses');
    expect(h.openai.requests.map((r) => r.path)).toEqual(['/v1/responses']);
    expect(lastVendorResponsesBody().stream).toBe(true);
  });

  test('chat completions still reach OpenAI as Chat Completions', async () => {
    h.openai.script({ text: 'chat' });
    await openai.chat.completions.create({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    expect(h.openai.requests.map((r) => r.path)).toEqual(['/v1/chat/completions']);
  });
});

describe('the native surface (/v1/responses)', () => {
  test('off by default: store: true keeps nothing and previous_response_id is 400 previous_response_id_unsupported', async () => {
    const other = await createOrg(h);
    const otherKey = (await createKey(h, other)).key;
    h.openai.script({ text: 'Not stored.' });
    const turn = await call(h.edgeUrl, otherKey, 'POST', '/v1/responses', { model: 'openai/gpt-4o', input: 'hi', store: true });
    expect(turn.status).toBe(200);
    expect((await call(h.edgeUrl, otherKey, 'GET', `/v1/responses/${turn.body.id}`)).status).toBe(404);
    const resume = await call(h.edgeUrl, otherKey, 'POST', '/v1/responses', { model: 'openai/gpt-4o', input: 'again', previous_response_id: turn.body.id });
    expect(resume.status).toBe(400);
    expect(resume.body.error.code).toBe('previous_response_id_unsupported');
  });

  test('with the organization setting on: store: true is kept (GET, previous_response_id on the same vendor, DELETE), omitting store keeps nothing', async () => {
    const on = await createOrg(h);
    await h.accessKeys.cli(['org', 'update', on.organizationId, '--response-store', 'on']);
    const onKey = (await createKey(h, on)).key;
    h.anthropic.script({ text: 'Noted: blue.' });
    const first = await call(h.edgeUrl, onKey, 'POST', '/v1/responses', { model: 'anthropic/claude-sonnet-4', input: 'My colour is blue.', store: true });
    expect(first.status).toBe(200);
    const stored = await call(h.edgeUrl, onKey, 'GET', `/v1/responses/${first.body.id}`);
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ id: first.body.id, object: 'response.stored', model: 'anthropic/claude-sonnet-4', vendor: 'anthropic', previous_response_id: null });
    expect(stored.body.input).toEqual([{ role: 'user', content: 'My colour is blue.' }]);
    expect(stored.body.output[0].content[0]).toEqual({ type: 'text', text: 'Noted: blue.' });

    h.anthropic.script({ text: 'Blue.' });
    const second = await call(h.edgeUrl, onKey, 'POST', '/v1/responses', { model: 'anthropic/claude-sonnet-4', input: 'My colour?', previous_response_id: first.body.id, store: true });
    expect(second.status).toBe(200);
    expect(second.body.vendor).toBe('anthropic');
    const anthropicRequests = h.anthropic.requests.filter((r) => r.path.endsWith('/messages'));
    const messages = (anthropicRequests[anthropicRequests.length - 1]!.json as { messages: Array<{ role: string; content: unknown }> }).messages;
    expect(messages.map((m) => [m.role, text(m.content)])).toEqual([
      ['user', 'My colour is blue.'],
      ['assistant', 'Noted: blue.'],
      ['user', 'My colour?'],
    ]);
    expect((await call(h.edgeUrl, onKey, 'GET', `/v1/responses/${second.body.id}`)).body.previous_response_id).toBe(first.body.id);

    const deleted = await call(h.edgeUrl, onKey, 'DELETE', `/v1/responses/${first.body.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: first.body.id, object: 'response.deleted', deleted: true });
    expect((await call(h.edgeUrl, onKey, 'GET', `/v1/responses/${first.body.id}`)).body.error.code).toBe('response_not_found');

    h.anthropic.script({ text: 'x' });
    const unstored = await call(h.edgeUrl, onKey, 'POST', '/v1/responses', { model: 'anthropic/claude-sonnet-4', input: 'no store field' });
    expect((await call(h.edgeUrl, onKey, 'GET', `/v1/responses/${unstored.body.id}`)).status).toBe(404);
  });
});

describe('scope, encryption, expiry and deletion', () => {
  test("another organization's key gets 404 for a stored id", async () => {
    h.openai.script({ text: 'mine' });
    const turn = await openai.responses.create({ model: 'openai/gpt-4o', input: 'private' });
    const stranger = await createOrg(h);
    const strangerKey = (await createKey(h, stranger)).key;
    expect((await call(h.edgeUrl, strangerKey, 'GET', `/v1/openai/responses/${turn.id}`)).status).toBe(404);
    expect((await call(h.edgeUrl, strangerKey, 'DELETE', `/v1/openai/responses/${turn.id}`)).status).toBe(404);
    expect((await call(h.edgeUrl, key, 'GET', `/v1/openai/responses/${turn.id}`)).status).toBe(200);
  });

  test('prompts and answers are encrypted at rest', async () => {
    h.openai.script({ text: 'the secret answer 7731' });
    const turn = await openai.responses.create({ model: 'openai/gpt-4o', input: 'the secret prompt 4412' });
    const { rows } = await pool.query<{ sealed: string }>('SELECT sealed FROM stored_responses WHERE id = $1', [turn.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.sealed.startsWith('v1.')).toBe(true);
    expect(rows[0]!.sealed).not.toContain('4412');
    expect(rows[0]!.sealed).not.toContain('7731');
  });

  test('a stored response expires one hour after its last use: GET is 404 once expired, and a read renews the hour', async () => {
    h.openai.script({ text: 'soon gone' });
    const turn = await openai.responses.create({ model: 'openai/gpt-4o', input: 'expire me' });
    const expiry = async () => (await pool.query<{ expires_at: Date; last_used_at: Date }>('SELECT expires_at, last_used_at FROM stored_responses WHERE id = $1', [turn.id])).rows[0]!;
    const created = await expiry();
    expect(created.expires_at.getTime() - created.last_used_at.getTime()).toBe(60 * 60 * 1000);
    await pool.query(`UPDATE stored_responses SET last_used_at = now() - interval '50 minutes', expires_at = now() + interval '10 minutes' WHERE id = $1`, [turn.id]);
    await openai.responses.retrieve(turn.id);
    expect((await expiry()).expires_at.getTime()).toBeGreaterThan(Date.now() + 59 * 60 * 1000);
    await pool.query(`UPDATE stored_responses SET expires_at = now() - interval '1 second' WHERE id = $1`, [turn.id]);
    expect((await call(h.edgeUrl, key, 'GET', `/v1/openai/responses/${turn.id}`)).status).toBe(404);
  });

  test("deleting a key removes its stored responses", async () => {
    const made = await createKey(h, org);
    const client = new OpenAI({ apiKey: made.key, baseURL: `${h.edgeUrl}/v1/openai`, maxRetries: 0 });
    h.openai.script({ text: 'a' });
    const turn = await client.responses.create({ model: 'openai/gpt-4o', input: 'owned by a key' });
    expect((await pool.query('SELECT 1 FROM stored_responses WHERE id = $1', [turn.id])).rowCount).toBe(1);
    const deleted = await call(h.edgeUrl, org.mgmtKey, 'DELETE', `/v1/keys/${made.hash}`);
    expect(deleted.status).toBeLessThan(300);
    expect((await pool.query('SELECT 1 FROM stored_responses WHERE id = $1', [turn.id])).rowCount).toBe(0);
  });

  test('deleting an organization removes its stored responses: the sweep deletes the turns of an organization that no longer exists and keeps the others', async () => {
    const doomed = await createOrg(h);
    const doomedClient = new OpenAI({ apiKey: (await createKey(h, doomed)).key, baseURL: `${h.edgeUrl}/v1/openai`, maxRetries: 0 });
    h.openai.script({ text: 'a' });
    const gone = await doomedClient.responses.create({ model: 'openai/gpt-4o', input: 'owned by an organization about to go' });
    h.openai.script({ text: 'b' });
    const kept = await openai.responses.create({ model: 'openai/gpt-4o', input: 'owned by an organization that stays' });
    expect((await pool.query('SELECT 1 FROM stored_responses WHERE id = $1', [gone.id])).rowCount).toBe(1);

    // Patchbay has no organization deletion of its own yet: the organization's row goes from access-keys-and-audit
    // (its tables cascade), which then answers 404 for it, as it will for whatever deletes organizations.
    await pool.query('DELETE FROM access_keys.organizations WHERE id = $1::uuid', [doomed.organizationId]);
    const swept = await h.runtime.sweepStoredResponses();
    expect(swept.deletedOrganizations).toBeGreaterThanOrEqual(1);
    expect((await pool.query('SELECT 1 FROM stored_responses WHERE organization_id = $1::uuid', [doomed.organizationId])).rowCount).toBe(0);
    expect((await call(h.edgeUrl, key, 'GET', `/v1/openai/responses/${kept.id}`)).status).toBe(200);
  });
});

describe('rate-limit headers (issue 27 §6)', () => {
  test('a 400 for an unknown model, decided before admission, carries X-RateLimit-Limit, -Remaining and -Reset', async () => {
    const res = await call(h.edgeUrl, key, 'POST', '/v1/responses', { model: 'nobody/no-such-model', input: 'hi' });
    expect(res.status).toBe(400);
    expect([res.headers.get('x-ratelimit-limit'), res.headers.get('x-ratelimit-remaining'), res.headers.get('x-ratelimit-reset')]).toEqual(['0', '0', '0']);
  });

  test("on the free plan the refusal reports the daily cap and the UTC day's end", async () => {
    const free = await createOrg(h, { plan: 'free' });
    const freeKey = (await createKey(h, free)).key;
    h.openai.script({ text: 'one' });
    const ok = await call(h.edgeUrl, freeKey, 'POST', '/v1/openai/chat/completions', { model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-ratelimit-limit')).toBe('15');
    const refused = await call(h.edgeUrl, freeKey, 'POST', '/v1/openai/chat/completions', { model: 'nobody/no-such-model', messages: [{ role: 'user', content: 'hi' }] });
    expect(refused.status).toBe(400);
    const dayEnd = (Math.floor(Date.now() / 86_400_000) + 1) * 86_400;
    expect(refused.headers.get('x-ratelimit-limit')).toBe('15');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe(ok.headers.get('x-ratelimit-remaining'));
    expect(refused.headers.get('x-ratelimit-reset')).toBe(String(dayEnd));
  });
});
