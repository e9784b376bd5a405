import { GMAIL_FAKE_TOKENS, GMAIL_FAKE_USER, parseRawMessage, startFakeGmail } from '@patchbay/provider-fakes';
import { expectOutputMatchesSchema } from './output-schema';
import { expectToolError, runTool } from './run-tool';

let fake: Awaited<ReturnType<typeof startFakeGmail>>;
const T = GMAIL_FAKE_TOKENS;
const oauth = (token: string) => ({ auth_type: 'oauth2' as const, values: {}, access_token: token });
const run = async (tool: string, input: unknown, token: string = T.valid) => {
  const output = await runTool('gmail', tool, { input }, { credential: oauth(token), baseUrl: `${fake.url}/gmail/v1` });
  expectOutputMatchesSchema('gmail', tool, output);
  return output;
};
const last = () => fake.requests.at(-1)!;
const seeded = (i: number) => fake.messages[i]!;

type Summary = { id: string; thread_id: string; subject: string | null; from: string | null; snippet: string | null; label_ids: string[]; message_id: string | null };

beforeAll(async () => {
  fake = await startFakeGmail({ messages: 7 });
});
afterAll(async () => {
  await fake.close();
});

describe('gmail connector', () => {
  it('search_messages lists with q and pageToken, then fetches each message\'s headers in metadata format', async () => {
    const before = fake.requests.length;
    const first = (await run('search_messages', { query: 'in:inbox', max_results: 4 })) as { messages: Summary[]; next_page_token: string | null; result_size_estimate: number };
    expect(first.messages.map((m) => m.id)).toEqual([seeded(6).id, seeded(5).id, seeded(4).id, seeded(3).id]);
    expect(first.result_size_estimate).toBe(7);
    expect(first.next_page_token).toEqual(expect.any(String));
    const calls = fake.requests.slice(before);
    expect(calls[0]).toMatchObject({ method: 'GET', path: '/gmail/v1/users/me/messages' });
    expect(calls[0]!.query.get('q')).toBe('in:inbox');
    expect(calls[0]!.query.get('maxResults')).toBe('4');
    expect(calls[0]!.headers.authorization).toBe(`Bearer ${T.valid}`);
    expect(calls).toHaveLength(5);
    for (const c of calls.slice(1)) {
      expect(c.path).toMatch(/^\/gmail\/v1\/users\/me\/messages\/[0-9a-f]{16}$/);
      expect(c.query.get('format')).toBe('metadata');
      expect(c.query.getAll('metadataHeaders')).toEqual(['Subject', 'From', 'To', 'Cc', 'Date', 'Message-ID']);
    }
    expect(first.messages[0]).toMatchObject({ thread_id: seeded(6).threadId, subject: 'Message 7', from: 'ana@example.com', to: GMAIL_FAKE_USER, label_ids: ['INBOX', 'UNREAD'], snippet: expect.stringContaining('Hello, this is message 7.'), message_id: `<${seeded(6).id}@mail.example.com>` });

    const second = (await run('search_messages', { query: 'in:inbox', max_results: 4, page_token: first.next_page_token })) as { messages: Summary[]; next_page_token: string | null };
    expect(second.messages.map((m) => m.id)).toEqual([seeded(2).id, seeded(1).id, seeded(0).id]);
    expect(second.next_page_token).toBeNull();
  });

  it('search_messages passes label filters and returns an empty list when Gmail leaves `messages` out', async () => {
    const unread = (await run('search_messages', { label_ids: ['INBOX', 'UNREAD'], query: 'from:ana@example.com' })) as { messages: Summary[] };
    expect(unread.messages.map((m) => m.subject)).toEqual(['Message 7', 'Message 1']);
    const list = fake.requests.find((r) => r.path === '/gmail/v1/users/me/messages' && r.query.get('q') === 'from:ana@example.com')!;
    expect(list.query.getAll('labelIds')).toEqual(['INBOX', 'UNREAD']);
    const none = await run('search_messages', { query: 'subject:"no such subject"' });
    expect(none).toEqual({ messages: [], next_page_token: null, result_size_estimate: 0 });
  });

  it('get_message decodes the base64url text/plain part and lists attachments', async () => {
    const m = (await run('get_message', { message_id: seeded(2).id })) as Summary & { body_text: string; attachments: unknown[] };
    expect(m).toMatchObject({ id: seeded(2).id, subject: 'Café ☕ demain ?', body_text: 'On se voit à 10 h ?\nÀ demain', attachments: [], body_truncated: false });
    expect(last()).toMatchObject({ method: 'GET', path: `/gmail/v1/users/me/messages/${seeded(2).id}` });
    expect(last().query.get('format')).toBe('full');

    const html = (await run('get_message', { message_id: seeded(1).id })) as { body_text: string; attachments: unknown[]; from: string };
    expect(html.from).toBe('Vendor Billing <billing@vendor.example>');
    expect(html.body_text).toBe('Invoice #42 is due.\nThanks & regards');
    expect(html.attachments).toEqual([{ filename: 'invoice-42.pdf', mime_type: 'application/pdf', size: 52311, attachment_id: `ANGjdJ_${seeded(1).id}` }]);

    const multipart = (await run('get_message', { message_id: seeded(0).id })) as { body_text: string };
    expect(multipart.body_text).toBe('Hello, this is message 1.\n\nBest,\nana@example.com');
  });

  it('get_message with format=metadata returns headers only', async () => {
    const m = await run('get_message', { message_id: seeded(0).id, format: 'metadata' });
    expect(m).toMatchObject({ subject: 'Message 1', from: 'Ana Lima <ana@example.com>', body_text: null, attachments: [] });
    expect(last().query.get('format')).toBe('metadata');
  });

  it('send_message posts an RFC 2822 message, base64url-encoded in raw, with an encoded non-ASCII subject', async () => {
    const sent = await run('send_message', { to: ['Ana Lima <ana@example.com>'], cc: ['bob@example.org'], subject: 'Résumé du projet', body: 'Bonjour Ana,\nvoici le résumé.\n\nÀ bientôt' });
    expect(sent).toEqual({ id: expect.stringMatching(/^[0-9a-f]{16}$/), thread_id: expect.any(String), label_ids: ['SENT'] });
    const req = last();
    expect(req).toMatchObject({ method: 'POST', path: '/gmail/v1/users/me/messages/send' });
    const raw = (req.json as { raw: string }).raw;
    expect(raw).toMatch(/^[A-Za-z0-9_-]+$/);
    const text = Buffer.from(raw, 'base64url').toString('utf8');
    expect(text).toContain('To: Ana Lima <ana@example.com>\r\n');
    expect(text).toContain('Cc: bob@example.org\r\n');
    expect(text).toContain('Subject: =?UTF-8?B?');
    expect(text).toContain('Content-Type: text/plain; charset="UTF-8"\r\n');
    const parsed = parseRawMessage(raw)!;
    expect(parsed.body).toBe('Bonjour Ana,\r\nvoici le résumé.\r\n\r\nÀ bientôt');
    const stored = fake.messages.at(-1)!;
    expect(stored.decoded.headers.subject).toMatch(/^=\?UTF-8\?B\?/);
    expect(Buffer.from(stored.decoded.headers.subject!.replace(/^=\?UTF-8\?B\?|\?=$/g, ''), 'base64').toString('utf8')).toBe('Résumé du projet');
  });

  it('send_message replies in a thread with threadId, In-Reply-To and References', async () => {
    const original = seeded(0);
    const messageId = `<${original.id}@mail.example.com>`;
    const sent = await run('send_message', { to: ['ana@example.com'], subject: 'Re: Message 1', body: 'Thanks!', thread_id: original.threadId, in_reply_to: messageId });
    expect(sent).toMatchObject({ thread_id: original.threadId });
    const body = last().json as { raw: string; threadId: string };
    expect(body.threadId).toBe(original.threadId);
    const headers = parseRawMessage(body.raw)!.headers;
    expect(headers['in-reply-to']).toBe(messageId);
    expect(headers.references).toBe(messageId);
  });

  it('create_draft posts the message under `message` and returns the draft id', async () => {
    const draft = await run('create_draft', { to: ['bob@example.org'], subject: 'Draft for review', body: 'Please check.' });
    expect(draft).toEqual({ draft_id: expect.any(String), message: { id: expect.any(String), thread_id: expect.any(String), label_ids: ['DRAFT'] } });
    expect(last()).toMatchObject({ method: 'POST', path: '/gmail/v1/users/me/drafts' });
    const raw = (last().json as { message: { raw: string } }).message.raw;
    expect(parseRawMessage(raw)!.headers.subject).toBe('Draft for review');
  });

  it('list_labels returns system and user labels', async () => {
    const res = (await run('list_labels', {})) as { labels: Array<{ id: string; name: string; type: string }> };
    expect(res.labels).toEqual(expect.arrayContaining([{ id: 'INBOX', name: 'INBOX', type: 'system' }, { id: 'Label_1', name: 'Customers', type: 'user' }]));
    expect(last()).toMatchObject({ method: 'GET', path: '/gmail/v1/users/me/labels' });
  });

  it('modify_labels adds and removes label ids (archive and mark read)', async () => {
    const target = seeded(4);
    const res = await run('modify_labels', { message_id: target.id, add_label_ids: ['Label_1'], remove_label_ids: ['INBOX', 'UNREAD'] });
    expect(res).toEqual({ id: target.id, thread_id: target.threadId, label_ids: ['Label_1'] });
    expect(last()).toMatchObject({ method: 'POST', path: `/gmail/v1/users/me/messages/${target.id}/modify` });
    expect(last().json).toEqual({ addLabelIds: ['Label_1'], removeLabelIds: ['INBOX', 'UNREAD'] });
  });

  it('modify_labels with an unknown label maps Gmail\'s 400 to invalid input', async () => {
    const err = await expectToolError(run('modify_labels', { message_id: seeded(3).id, add_label_ids: ['Label_99'] }), 'invalid_input');
    expect(err.message).toContain('Invalid label: Label_99');
  });

  it('refuses arguments that fail the input schema before calling Gmail, including header injection', async () => {
    const before = fake.requests.length;
    const err = await expectToolError(run('send_message', { to: [], subject: 'Hi\r\nBcc: evil@example.com', body: 'x' }), 'invalid_input');
    expect(err.message).toContain('input.to must NOT have fewer than 1 items');
    expect(err.message).toContain('input.subject must match pattern');
    await expectToolError(run('modify_labels', { message_id: seeded(3).id }), 'invalid_input');
    await expectToolError(run('get_message', { message_id: seeded(3).id, format: 'raw' }), 'invalid_input');
    expect(fake.requests.length).toBe(before);
  });

  it('maps 401 to a rejected credential, without echoing the token', async () => {
    const err = await expectToolError(run('list_labels', {}, 'ya29.expired-token'), 'credential_rejected');
    expect(err.message).toContain('reconnect Gmail');
    expect(err.message).not.toContain('ya29.expired-token');
  });

  it('maps 404 to not found with Gmail\'s message', async () => {
    const err = await expectToolError(run('get_message', { message_id: '0000000000000000' }), 'not_found');
    expect(err.message).toContain('Requested entity was not found.');
  });

  it('maps both of Google\'s rate-limit answers (403 rateLimitExceeded and 429 with Retry-After) to rate_limited', async () => {
    await expectToolError(run('list_labels', {}, T.rateLimited403), 'rate_limited');
    const err = await expectToolError(run('search_messages', {}, T.rateLimited429), 'rate_limited');
    expect(err.retryAfterSeconds).toBe(42);
  });

  it('maps 5xx to a provider error and a silent Gmail to a timeout', async () => {
    await expectToolError(run('get_message', { message_id: seeded(0).id }, T.failing), 'provider_error');
    const { createServer } = await import('node:http');
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    try {
      await expectToolError(runTool('gmail', 'list_labels', { input: {} }, { credential: oauth(T.valid), baseUrl: `http://127.0.0.1:${port}`, limits: { timeoutMs: 200 } }), 'timeout');
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});
