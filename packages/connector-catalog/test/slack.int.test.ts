import { SLACK_FAKE_BOT, SLACK_FAKE_TOKENS, startFakeSlack } from '@patchbay/provider-fakes';
import { createServer } from 'node:http';
import { findTool, getBuiltinConnector } from '../src/catalog';
import { validateToolArguments } from '../src/core/validate';
import { expectToolError, runTool } from './run-tool';

let fake: Awaited<ReturnType<typeof startFakeSlack>>;
const cred = (token: string) => ({ auth_type: 'bearer_token' as const, values: { bot_token: token } });

/** Runs a Slack tool against the fake and checks a successful output against the tool's output schema. */
async function run(tool: string, input: unknown, token: string = SLACK_FAKE_TOKENS.valid): Promise<any> {
  const output = await runTool('slack', tool, { input }, { credential: cred(token), baseUrl: fake.url });
  expect(validateToolArguments({ input_schema: findTool(getBuiltinConnector('slack')!, tool)!.output_schema }, output)).toEqual([]);
  return output;
}
const lastRequest = () => fake.requests.at(-1)!;

beforeAll(async () => {
  fake = await startFakeSlack({ channels: 4, users: 5, messages: 7 });
});
afterAll(async () => {
  await fake.close();
});

describe('slack connector', () => {
  it('list_channels calls conversations.list with the bot token as a bearer header and pages with next_cursor', async () => {
    const first = await run('list_channels', { limit: 3 });
    let sent = lastRequest();
    expect(sent.method).toBe('GET');
    expect(sent.path).toBe('/conversations.list');
    expect(sent.headers.authorization).toBe(`Bearer ${SLACK_FAKE_TOKENS.valid}`);
    expect(sent.query.get('types')).toBe('public_channel');
    expect(sent.query.get('exclude_archived')).toBe('true');
    expect(sent.query.get('limit')).toBe('3');
    expect(first.channels.map((c: { name: string }) => c.name)).toEqual(['general', 'project-1', 'project-2']);
    expect(first.channels[0]).toEqual({
      id: 'C00000001',
      name: 'general',
      type: 'public_channel',
      is_archived: false,
      is_member: true,
      topic: 'Company-wide announcements',
      purpose: 'About general',
      num_members: 6,
      created_at: '2026-01-01T01:00:00.000Z',
    });
    expect(typeof first.next_cursor).toBe('string');

    const second = await run('list_channels', { limit: 3, cursor: first.next_cursor });
    sent = lastRequest();
    expect(sent.query.get('cursor')).toBe(first.next_cursor);
    expect(second.channels.map((c: { name: string }) => c.name)).toEqual(['project-3', 'not-joined']);
    expect(second.next_cursor).toBeNull();
  });

  it('list_channels includes private channels the bot is in and archived ones when asked', async () => {
    const res = await run('list_channels', { types: ['public_channel', 'private_channel'], exclude_archived: false });
    expect(lastRequest().query.get('types')).toBe('public_channel,private_channel');
    expect(lastRequest().query.get('exclude_archived')).toBe('false');
    const names = res.channels.map((c: { name: string }) => c.name);
    expect(names).toEqual(expect.arrayContaining(['old-stuff', 'secret-plans']));
    expect(names).not.toContain('hidden');
    expect(res.channels.find((c: { name: string }) => c.name === 'secret-plans')).toMatchObject({ type: 'private_channel', is_member: true });
  });

  it('get_channel_history reads conversations.history newest first and pages with next_cursor', async () => {
    const first = await run('get_channel_history', { channel: 'C00000001', limit: 4 });
    let sent = lastRequest();
    expect(sent).toMatchObject({ method: 'GET', path: '/conversations.history' });
    expect(sent.query.get('channel')).toBe('C00000001');
    expect(sent.query.get('limit')).toBe('4');
    expect(first.messages.map((m: { text: string }) => m.text)).toEqual(['Message 7', 'Message 6', 'Message 5', 'Message 4']);
    expect(first.messages[0]).toEqual({
      ts: '1767312360.000100',
      time: '2026-01-02T00:06:00.000Z',
      user: 'U00000002',
      bot_id: null,
      text: 'Message 7',
      subtype: null,
      thread_ts: null,
      reply_count: 0,
      reactions: [],
      edited: false,
    });
    expect(first.has_more).toBe(true);
    expect(first.next_cursor).toEqual(expect.any(String));

    const second = await run('get_channel_history', { channel: 'C00000001', limit: 4, cursor: first.next_cursor });
    sent = lastRequest();
    expect(sent.query.get('cursor')).toBe(first.next_cursor);
    expect(second.messages.map((m: { text: string }) => m.text)).toEqual(['Message 3', 'Message 2', 'Message 1']);
    expect(second.messages[2].reactions).toEqual([{ name: 'wave', count: 1 }]);
    expect(second.has_more).toBe(false);
    expect(second.next_cursor).toBeNull();
  });

  it('get_channel_history passes the oldest and latest bounds', async () => {
    const res = await run('get_channel_history', { channel: 'C00000001', oldest: '1767312000.000100', latest: '1767312240.000100', inclusive: true });
    const sent = lastRequest();
    expect(sent.query.get('oldest')).toBe('1767312000.000100');
    expect(sent.query.get('latest')).toBe('1767312240.000100');
    expect(sent.query.get('inclusive')).toBe('true');
    expect(res.messages.map((m: { text: string }) => m.text)).toEqual(['Message 5', 'Message 4', 'Message 3', 'Message 2', 'Message 1']);
  });

  it('get_channel_history maps not_in_channel to forbidden with what to do', async () => {
    const err = await expectToolError(run('get_channel_history', { channel: 'C00000005' }), 'forbidden');
    expect(err.message).toContain('not_in_channel');
    expect(err.message).toContain('invited');
  });

  it('post_message posts JSON to chat.postMessage and returns the new message ts', async () => {
    const posted = await run('post_message', { channel: 'C00000002', text: 'Deploy finished :rocket:' });
    const sent = lastRequest();
    expect(sent).toMatchObject({ method: 'POST', path: '/chat.postMessage' });
    expect(sent.headers['content-type']).toContain('application/json');
    expect(sent.headers.authorization).toBe(`Bearer ${SLACK_FAKE_TOKENS.valid}`);
    expect(sent.json).toEqual({ channel: 'C00000002', text: 'Deploy finished :rocket:' });
    expect(posted).toMatchObject({ channel: 'C00000002', ts: expect.stringMatching(/^\d+\.\d+$/), thread_ts: null, text: 'Deploy finished :rocket:' });
    expect(fake.channels[1]!.messages.at(-1)).toMatchObject({ text: 'Deploy finished :rocket:', user: SLACK_FAKE_BOT.user_id });
  });

  it('post_message replies in a thread with thread_ts', async () => {
    const parent = fake.channels[0]!.messages[0]!.ts;
    const reply = await run('post_message', { channel: 'C00000001', text: 'On it', thread_ts: parent, reply_broadcast: true });
    expect(lastRequest().json).toEqual({ channel: 'C00000001', text: 'On it', thread_ts: parent, reply_broadcast: true });
    expect(reply).toMatchObject({ channel: 'C00000001', thread_ts: parent });
    const history = await run('get_channel_history', { channel: 'C00000001', limit: 100 });
    expect(history.messages.find((m: { ts: string }) => m.ts === parent)).toMatchObject({ thread_ts: parent, reply_count: 1 });
    expect(history.messages.some((m: { text: string }) => m.text === 'On it')).toBe(false);
  });

  it('post_message maps channel_not_found (HTTP 200, ok false) to not found', async () => {
    const err = await expectToolError(run('post_message', { channel: 'C99999999', text: 'hello' }), 'not_found');
    expect(err.status).toBe(200);
    expect(err.message).toContain('channel_not_found');
  });

  it('post_message maps is_archived to forbidden', async () => {
    const err = await expectToolError(run('post_message', { channel: '#old-stuff', text: 'hello' }), 'forbidden');
    expect(err.message).toContain('is_archived');
  });

  it('update_message replaces the text of the bot\'s message through chat.update', async () => {
    const posted = await run('post_message', { channel: 'C00000001', text: 'Status: running' });
    const updated = await run('update_message', { channel: 'C00000001', ts: posted.ts, text: 'Status: done' });
    const sent = lastRequest();
    expect(sent).toMatchObject({ method: 'POST', path: '/chat.update' });
    expect(sent.json).toEqual({ channel: 'C00000001', ts: posted.ts, text: 'Status: done' });
    expect(updated).toMatchObject({ channel: 'C00000001', ts: posted.ts, text: 'Status: done' });
  });

  it('update_message maps message_not_found to not found and another user\'s message to forbidden', async () => {
    await expectToolError(run('update_message', { channel: 'C00000001', ts: '1000000000.000000', text: 'x' }), 'not_found');
    const err = await expectToolError(run('update_message', { channel: 'C00000001', ts: fake.channels[0]!.messages[1]!.ts, text: 'x' }), 'forbidden');
    expect(err.message).toContain('cant_update_message');
  });

  it('add_reaction adds the emoji through reactions.add, colons stripped, and treats already_reacted as done', async () => {
    const ts = fake.channels[0]!.messages[2]!.ts;
    const first = await run('add_reaction', { channel: 'C00000001', timestamp: ts, name: ':eyes:' });
    const sent = lastRequest();
    expect(sent).toMatchObject({ method: 'POST', path: '/reactions.add' });
    expect(sent.json).toEqual({ channel: 'C00000001', timestamp: ts, name: 'eyes' });
    expect(first).toEqual({ channel: 'C00000001', timestamp: ts, name: 'eyes', already_reacted: false });
    const again = await run('add_reaction', { channel: 'C00000001', timestamp: ts, name: 'eyes' });
    expect(again).toEqual({ channel: 'C00000001', timestamp: ts, name: 'eyes', already_reacted: true });
    expect(fake.channels[0]!.messages[2]!.reactions).toEqual([{ name: 'eyes', users: [SLACK_FAKE_BOT.user_id] }]);
  });

  it('add_reaction maps invalid_name to invalid input', async () => {
    const ts = fake.channels[0]!.messages[2]!.ts;
    await expectToolError(run('add_reaction', { channel: 'C00000001', timestamp: ts, name: 'Not An Emoji' }), 'invalid_input');
  });

  it('list_users calls users.list and pages with next_cursor', async () => {
    const first = await run('list_users', { limit: 4 });
    let sent = lastRequest();
    expect(sent).toMatchObject({ method: 'GET', path: '/users.list' });
    expect(sent.query.get('limit')).toBe('4');
    expect(first.users).toHaveLength(4);
    expect(first.users[0]).toEqual({
      id: 'U00000001',
      name: 'user1',
      real_name: 'User 1',
      display_name: 'u1',
      email: 'user1@example.com',
      title: 'Engineering manager',
      is_bot: false,
      is_admin: true,
      deleted: false,
      timezone: 'Europe/Paris',
    });
    const second = await run('list_users', { limit: 4, cursor: first.next_cursor });
    sent = lastRequest();
    expect(sent.query.get('cursor')).toBe(first.next_cursor);
    expect(second.users.map((u: { id: string }) => u.id)).toEqual(['U00000005', SLACK_FAKE_BOT.user_id]);
    expect(second.users[1]).toMatchObject({ is_bot: true, email: null });
    expect(second.next_cursor).toBeNull();
  });

  it('get_user calls users.info and maps user_not_found to not found', async () => {
    const user = await run('get_user', { user: 'U00000003' });
    const sent = lastRequest();
    expect(sent).toMatchObject({ method: 'GET', path: '/users.info' });
    expect(sent.query.get('user')).toBe('U00000003');
    expect(user).toMatchObject({ id: 'U00000003', name: 'user3', real_name: 'User 3', email: 'user3@example.com', title: null });
    const err = await expectToolError(run('get_user', { user: 'U404' }), 'not_found');
    expect(err.message).toContain('user_not_found');
  });

  it('maps invalid_auth, not_authed and token_revoked to a rejected credential, without echoing the token', async () => {
    const wrong = await expectToolError(run('list_channels', {}, 'xoxb-wrong-secret'), 'credential_rejected');
    expect(wrong.message).toContain('invalid_auth');
    expect(wrong.message).toContain('reconnect Slack');
    expect(wrong.message).not.toContain('xoxb-wrong-secret');
    const none = await expectToolError(run('list_channels', {}, ''), 'credential_rejected');
    expect(none.message).toContain('not_authed');
    const revoked = await expectToolError(run('get_user', { user: 'U00000001' }, SLACK_FAKE_TOKENS.revoked), 'credential_rejected');
    expect(revoked.message).toContain('token_revoked');
  });

  it('maps missing_scope to forbidden, naming the scope Slack needs', async () => {
    const err = await expectToolError(run('post_message', { channel: 'C00000001', text: 'hi' }, SLACK_FAKE_TOKENS.noScopes), 'forbidden');
    expect(err.message).toContain('chat:write');
  });

  it('maps HTTP 429 ratelimited to rate_limited with Retry-After', async () => {
    const err = await expectToolError(run('get_channel_history', { channel: 'C00000001' }, SLACK_FAKE_TOKENS.rateLimited), 'rate_limited');
    expect(err.retryAfterSeconds).toBe(30);
    expect(err.message).toContain('retry after 30 s');
  });

  it('maps a 5xx to a provider error and a slow Slack to a timeout', async () => {
    await expectToolError(run('list_users', {}, SLACK_FAKE_TOKENS.failing), 'provider_error');
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    try {
      await expectToolError(
        runTool('slack', 'list_channels', { input: {} }, { credential: cred(SLACK_FAKE_TOKENS.valid), baseUrl: `http://127.0.0.1:${port}`, limits: { timeoutMs: 200 } }),
        'timeout',
      );
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('refuses input that fails the schema before calling Slack', async () => {
    const before = fake.requests.length;
    const err = await expectToolError(run('post_message', { channel: 'C00000001', thread_ts: 'yesterday' }), 'invalid_input');
    expect(err.message).toContain('input.text is required');
    expect(err.message).toContain('input.thread_ts must match pattern');
    await expectToolError(run('list_channels', { limit: 5000 }), 'invalid_input');
    await expectToolError(run('get_user', {}), 'invalid_input');
    expect(fake.requests.length).toBe(before);
  });

  it('uses the OAuth access token when the user connected through OAuth', async () => {
    await runTool('slack', 'get_user', { input: { user: 'U00000001' } }, { credential: { auth_type: 'oauth2', values: {}, access_token: SLACK_FAKE_TOKENS.valid }, baseUrl: fake.url });
    expect(lastRequest().headers.authorization).toBe(`Bearer ${SLACK_FAKE_TOKENS.valid}`);
  });
});
