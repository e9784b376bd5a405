import { FakeRoutes, bearerToken, startFakeServer, type FakeReply, type FakeRequest, type FakeServer } from './fake-server';

/** Tokens the fake Slack understands. */
export const SLACK_FAKE_TOKENS = {
  valid: 'xoxb-fake-valid-token',
  /** A token the workspace revoked: every call answers `token_revoked`. */
  revoked: 'xoxb-fake-revoked-token',
  /** Installed without any scope the tools need: every method answers `missing_scope`. */
  noScopes: 'xoxb-fake-no-scopes-token',
  /** Over the method's rate limit: HTTP 429 with Retry-After. */
  rateLimited: 'xoxb-fake-rate-limited-token',
  /** Slack is having a bad day: HTTP 500. */
  failing: 'xoxb-fake-failing-token',
} as const;

/** The bot user the valid token acts as. */
export const SLACK_FAKE_BOT = { user_id: 'U0BOT00001', bot_id: 'B0BOT00001', team_id: 'T0FAKE0001' } as const;

/** The scope each method needs (Slack's documented bot scopes). */
const SCOPES: Record<string, string> = {
  'conversations.list': 'channels:read,groups:read',
  'conversations.history': 'channels:history,groups:history',
  'chat.postMessage': 'chat:write',
  'chat.update': 'chat:write',
  'reactions.add': 'reactions:write',
  'users.list': 'users:read',
  'users.info': 'users:read',
};

/** Methods that accept a JSON body; Slack's read methods take only query or form arguments. */
const JSON_METHODS = new Set(['chat.postMessage', 'chat.update', 'reactions.add']);

interface Channel {
  id: string;
  name: string;
  is_private: boolean;
  is_archived: boolean;
  is_member: boolean;
  topic: string;
  purpose: string;
  created: number;
  messages: Message[];
}

interface Message {
  ts: string;
  user?: string;
  bot_id?: string;
  text: string;
  thread_ts?: string;
  reply_count?: number;
  reactions: Array<{ name: string; users: string[] }>;
  edited?: { user: string; ts: string };
}

interface User {
  id: string;
  name: string;
  real_name: string;
  display_name: string;
  email: string;
  title: string;
  is_admin: boolean;
  is_bot: boolean;
  deleted: boolean;
  tz: string;
}

export interface FakeSlackSeed {
  /** Public channels the bot is a member of (plus one private channel, one archived and one it has not joined). */
  channels?: number;
  /** Human users (the bot user comes on top). */
  users?: number;
  /** Messages in the first channel, #general. */
  messages?: number;
}

const EPOCH = 1_767_225_600; // 2026-01-01T00:00:00Z
const ok = (body: Record<string, unknown>, extra: Record<string, unknown> = {}): FakeReply => ({ body: { ok: true, ...body, ...extra } });
const fail = (error: string, extra: Record<string, unknown> = {}): FakeReply => ({ body: { ok: false, error, ...extra } });
const pad = (n: number) => String(n).padStart(8, '0');
const tsOf = (seconds: number, seq = 0) => `${seconds}.${String(seq).padStart(6, '0')}`;

/** Slack's cursors are opaque base64 strings; this one encodes the id of the next item. */
const encodeCursor = (kind: string, id: string) => Buffer.from(`${kind}:${id}`).toString('base64');
function decodeCursor(kind: string, cursor: string): string | undefined {
  const text = Buffer.from(cursor, 'base64').toString('utf8');
  return text.startsWith(`${kind}:`) ? text.slice(kind.length + 1) : undefined;
}

/**
 * Slack's cursor pagination: `limit` items from the one the cursor names, and the next cursor in
 * response_metadata.next_cursor ("" on the last page). A cursor that does not decode is `invalid_cursor`.
 */
function page<T>(items: T[], idOf: (item: T) => string, kind: string, args: URLSearchParams, fallbackLimit: number, maxLimit: number): { slice: T[]; next_cursor: string } | FakeReply {
  const limitArg = args.get('limit');
  const limit = limitArg === null || limitArg === '' ? fallbackLimit : Number(limitArg);
  if (!Number.isInteger(limit) || limit < 0 || limit > maxLimit) return fail('invalid_limit');
  let start = 0;
  const cursor = args.get('cursor');
  if (cursor) {
    const id = decodeCursor(kind, cursor);
    start = id === undefined ? -1 : items.findIndex((item) => idOf(item) === id);
    if (start === -1) return fail('invalid_cursor');
  }
  // A limit of 0 means Slack's default page size; for users.list that is everyone at once.
  const size = limit > 0 ? limit : fallbackLimit > 0 ? fallbackLimit : items.length;
  const slice = items.slice(start, start + size);
  const next = items[start + size];
  return { slice, next_cursor: next ? encodeCursor(kind, idOf(next)) : '' };
}

/**
 * A fake of Slack's Web API (https://slack.com/api/<method>) for the Slack connector. Like Slack it
 * answers almost every failure with HTTP 200 and `{"ok": false, "error": "<code>"}` (invalid_auth,
 * not_authed, token_revoked, missing_scope with needed/provided, channel_not_found, user_not_found,
 * message_not_found, not_in_channel, invalid_arguments...), rate limits with HTTP 429, Retry-After and
 * `ratelimited`, pages with response_metadata.next_cursor, reads arguments from the query string, a
 * form body or (write methods only) a JSON body, and warns `missing_charset` on JSON without a charset.
 */
export async function startFakeSlack(seed: FakeSlackSeed = {}): Promise<FakeServer & { channels: Channel[]; users: User[] }> {
  const channelCount = seed.channels ?? 3;
  const userCount = seed.users ?? 3;
  const users: User[] = Array.from({ length: userCount }, (_, i) => ({
    id: `U${pad(i + 1)}`,
    name: `user${i + 1}`,
    real_name: `User ${i + 1}`,
    display_name: `u${i + 1}`,
    email: `user${i + 1}@example.com`,
    title: i === 0 ? 'Engineering manager' : '',
    is_admin: i === 0,
    is_bot: false,
    deleted: false,
    tz: 'Europe/Paris',
  }));
  users.push({ id: SLACK_FAKE_BOT.user_id, name: 'patchbay', real_name: 'Patchbay', display_name: '', email: '', title: '', is_admin: false, is_bot: true, deleted: false, tz: 'America/Los_Angeles' });

  const channel = (i: number, name: string, extra: Partial<Channel> = {}): Channel => ({
    id: `C${pad(i)}`,
    name,
    is_private: false,
    is_archived: false,
    is_member: true,
    topic: '',
    purpose: `About ${name}`,
    created: EPOCH + i * 3600,
    messages: [],
    ...extra,
  });
  const channels: Channel[] = [
    channel(1, 'general', { topic: 'Company-wide announcements' }),
    ...Array.from({ length: Math.max(channelCount - 1, 0) }, (_, i) => channel(i + 2, `project-${i + 1}`)),
    channel(channelCount + 1, 'not-joined', { is_member: false }),
    channel(channelCount + 2, 'old-stuff', { is_archived: true }),
    { ...channel(channelCount + 3, 'secret-plans', { is_private: true }), id: `G${pad(channelCount + 3)}` },
    // A private channel the bot is not in: Slack pretends it does not exist.
    { ...channel(channelCount + 4, 'hidden', { is_private: true, is_member: false }), id: `G${pad(channelCount + 4)}` },
  ];
  const general = channels[0]!;
  const messageCount = seed.messages ?? 5;
  for (let i = 0; i < messageCount; i++) {
    general.messages.push({ ts: tsOf(EPOCH + 86_400 + i * 60, 100), user: users[i % userCount]?.id ?? SLACK_FAKE_BOT.user_id, text: `Message ${i + 1}`, reactions: i === 0 ? [{ name: 'wave', users: [users[0]?.id ?? SLACK_FAKE_BOT.user_id] }] : [] });
  }
  let clock = EPOCH + 10 * 86_400;

  const visibleMembers = (c: Channel) => (c.is_private ? c.is_member : true);
  /** Slack takes a channel ID, and for chat.postMessage also a name (`general` or `#general`). */
  const findChannel = (ref: string | undefined, byName = false) =>
    channels.find((c) => visibleMembers(c) && (c.id === ref || (byName && ref !== undefined && c.name === ref.replace(/^#/, ''))));

  const renderChannel = (c: Channel) => ({
    id: c.id,
    name: c.name,
    is_channel: !c.is_private,
    is_group: false,
    is_im: false,
    is_mpim: false,
    is_private: c.is_private,
    is_archived: c.is_archived,
    is_general: c === general,
    is_member: c.is_member,
    created: c.created,
    creator: users[0]?.id ?? '',
    topic: { value: c.topic, creator: '', last_set: 0 },
    purpose: { value: c.purpose, creator: '', last_set: 0 },
    num_members: c.is_member ? userCount + 1 : userCount,
  });
  const renderMessage = (m: Message) => ({
    type: 'message',
    ...(m.user ? { user: m.user } : {}),
    ...(m.bot_id ? { bot_id: m.bot_id, app_id: 'A0FAKE0001' } : {}),
    text: m.text,
    ts: m.ts,
    ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}),
    ...(m.reply_count !== undefined ? { reply_count: m.reply_count } : {}),
    ...(m.edited ? { edited: m.edited } : {}),
    ...(m.reactions.length > 0 ? { reactions: m.reactions.map((r) => ({ name: r.name, users: r.users, count: r.users.length })) } : {}),
  });
  const renderUser = (u: User) => ({
    id: u.id,
    team_id: SLACK_FAKE_BOT.team_id,
    name: u.name,
    deleted: u.deleted,
    real_name: u.real_name,
    tz: u.tz,
    tz_offset: u.tz === 'Europe/Paris' ? 3600 : -28800,
    is_admin: u.is_admin,
    is_owner: u.is_admin,
    is_bot: u.is_bot,
    is_app_user: false,
    updated: EPOCH,
    profile: { real_name: u.real_name, display_name: u.display_name, title: u.title, ...(u.email ? { email: u.email } : {}), image_72: `https://avatars.example.com/${u.id}.png` },
  });

  /** A method's arguments: query string, form body, or JSON body where Slack accepts one. */
  const argsOf = (method: string, req: FakeRequest): URLSearchParams => {
    const args = new URLSearchParams(req.query);
    const type = String(req.headers['content-type'] ?? '');
    if (type.includes('x-www-form-urlencoded')) new URLSearchParams(req.body).forEach((v, k) => args.set(k, v));
    else if (type.includes('json') && JSON_METHODS.has(method) && req.json && typeof req.json === 'object') {
      for (const [k, v] of Object.entries(req.json as Record<string, unknown>)) {
        if (v !== undefined && v !== null) args.set(k, typeof v === 'string' ? v : JSON.stringify(v));
      }
    }
    return args;
  };
  const missing = (field: string) => fail('invalid_arguments', { response_metadata: { messages: [`[ERROR] missing required field: ${field}`] } });

  const methods: Record<string, (args: URLSearchParams) => FakeReply> = {
    'conversations.list': (args) => {
      const types = (args.get('types') || 'public_channel').split(',');
      if (types.some((t) => !['public_channel', 'private_channel', 'mpim', 'im'].includes(t))) return fail('invalid_types');
      const excludeArchived = args.get('exclude_archived') === 'true' || args.get('exclude_archived') === '1';
      const list = channels
        .filter(visibleMembers)
        .filter((c) => (c.is_private ? types.includes('private_channel') : types.includes('public_channel')))
        .filter((c) => !excludeArchived || !c.is_archived);
      const result = page(list, (c) => c.id, 'channel', args, 100, 1000);
      if (!('slice' in result)) return result;
      return ok({ channels: result.slice.map(renderChannel), response_metadata: { next_cursor: result.next_cursor } });
    },
    'conversations.history': (args) => {
      const id = args.get('channel');
      if (!id) return missing('channel');
      const c = findChannel(id);
      if (!c) return fail('channel_not_found');
      if (!c.is_member) return fail('not_in_channel');
      const inclusive = args.get('inclusive') === 'true' || args.get('inclusive') === '1';
      const oldest = args.get('oldest');
      const latest = args.get('latest');
      for (const bound of [oldest, latest]) if (bound && !/^\d+(\.\d+)?$/.test(bound)) return fail(bound === oldest ? 'invalid_ts_oldest' : 'invalid_ts_latest');
      const after = (ts: string) => (oldest ? (inclusive ? Number(ts) >= Number(oldest) : Number(ts) > Number(oldest)) : true);
      const before = (ts: string) => (latest ? (inclusive ? Number(ts) <= Number(latest) : Number(ts) < Number(latest)) : true);
      // History lists top-level messages and thread parents, newest first; replies stay in their thread.
      const list = c.messages.filter((m) => !m.thread_ts || m.thread_ts === m.ts).filter((m) => after(m.ts) && before(m.ts)).sort((a, b) => Number(b.ts) - Number(a.ts));
      const result = page(list, (m) => m.ts, 'ts', args, 100, 999);
      if (!('slice' in result)) return result;
      return ok({ messages: result.slice.map(renderMessage), has_more: result.next_cursor !== '', pin_count: 0, response_metadata: { next_cursor: result.next_cursor } });
    },
    'chat.postMessage': (args) => {
      const ref = args.get('channel');
      if (!ref) return fail('channel_not_found');
      const text = args.get('text') ?? '';
      if (!text.trim() && !args.get('blocks') && !args.get('attachments')) return fail('no_text');
      if (text.length > 40_000) return fail('msg_too_long');
      const c = findChannel(ref, true);
      if (!c) return fail('channel_not_found');
      if (c.is_archived) return fail('is_archived');
      if (!c.is_member && c.is_private) return fail('not_in_channel');
      const threadTs = args.get('thread_ts') || undefined;
      const parent = threadTs ? c.messages.find((m) => m.ts === threadTs) : undefined;
      // Slack does not check that the parent exists; replying to a reply joins the parent's thread.
      const threadRoot = parent?.thread_ts ?? threadTs;
      const message: Message = { ts: tsOf(++clock, 200), user: SLACK_FAKE_BOT.user_id, bot_id: SLACK_FAKE_BOT.bot_id, text, reactions: [], ...(threadRoot ? { thread_ts: threadRoot } : {}) };
      if (parent && threadRoot === parent.ts) {
        parent.thread_ts = parent.ts;
        parent.reply_count = (parent.reply_count ?? 0) + 1;
      }
      c.messages.push(message);
      return ok({ channel: c.id, ts: message.ts, message: renderMessage(message) });
    },
    'chat.update': (args) => {
      const c = findChannel(args.get('channel') ?? undefined);
      if (!c) return fail('channel_not_found');
      const ts = args.get('ts');
      if (!ts) return missing('ts');
      const message = c.messages.find((m) => m.ts === ts);
      if (!message) return fail('message_not_found');
      if (message.user !== SLACK_FAKE_BOT.user_id) return fail('cant_update_message');
      const text = args.get('text') ?? '';
      if (!text.trim() && !args.get('blocks')) return fail('no_text');
      message.text = text;
      message.edited = { user: SLACK_FAKE_BOT.user_id, ts: tsOf(++clock) };
      return ok({ channel: c.id, ts: message.ts, text: message.text, message: renderMessage(message) });
    },
    'reactions.add': (args) => {
      const name = args.get('name');
      if (!name) return missing('name');
      const timestamp = args.get('timestamp');
      const channelId = args.get('channel');
      if (!timestamp || !channelId) return fail('no_item_specified');
      const c = findChannel(channelId);
      if (!c) return fail('channel_not_found');
      const message = c.messages.find((m) => m.ts === timestamp);
      if (!message) return fail('message_not_found');
      if (!/^[a-z0-9_+'-]+(::skin-tone-[2-6])?$/.test(name)) return fail('invalid_name');
      let reaction = message.reactions.find((r) => r.name === name);
      if (reaction?.users.includes(SLACK_FAKE_BOT.user_id)) return fail('already_reacted');
      if (!reaction) {
        reaction = { name, users: [] };
        message.reactions.push(reaction);
      }
      reaction.users.push(SLACK_FAKE_BOT.user_id);
      return ok({});
    },
    'users.list': (args) => {
      const result = page(users, (u) => u.id, 'user', args, 0, 1000);
      if (!('slice' in result)) return result;
      return ok({ members: result.slice.map(renderUser), cache_ts: clock, response_metadata: { next_cursor: result.next_cursor } });
    },
    'users.info': (args) => {
      const id = args.get('user');
      if (!id) return missing('user');
      const user = users.find((u) => u.id === id);
      return user ? ok({ user: renderUser(user) }) : fail('user_not_found');
    },
  };

  const routes = new FakeRoutes();
  for (const [method, handler] of Object.entries(methods)) {
    const run = (req: FakeRequest): FakeReply => {
      const reply = handler(argsOf(method, req));
      const type = String(req.headers['content-type'] ?? '');
      if (type.includes('json') && !/charset/i.test(type) && reply.body && typeof reply.body === 'object') {
        const body = reply.body as { response_metadata?: Record<string, unknown> };
        return { ...reply, body: { ...body, warning: 'missing_charset', response_metadata: { ...body.response_metadata, warnings: ['missing_charset'] } } };
      }
      return reply;
    };
    routes.route('GET', `/${method}`, run).route('POST', `/${method}`, run);
  }

  const server = await startFakeServer({
    routes,
    notFound: { status: 404, body: { ok: false, error: 'unknown_method', req_method: 'unknown' } },
    before: (req): FakeReply | undefined => {
      const method = req.path.replace(/^\//, '');
      if (!(method in methods)) return undefined;
      // Slack also takes the token as an argument; the Authorization header wins.
      const token = bearerToken(req) ?? new URLSearchParams(req.query).get('token') ?? undefined;
      if (!token) return fail('not_authed');
      if (token === SLACK_FAKE_TOKENS.revoked) return fail('token_revoked');
      if (!Object.values(SLACK_FAKE_TOKENS).includes(token as never)) return fail('invalid_auth');
      if (token === SLACK_FAKE_TOKENS.rateLimited) return { status: 429, headers: { 'retry-after': '30' }, body: { ok: false, error: 'ratelimited' } };
      if (token === SLACK_FAKE_TOKENS.failing) return { status: 500, body: { ok: false, error: 'internal_error' } };
      if (token === SLACK_FAKE_TOKENS.noScopes) return fail('missing_scope', { needed: SCOPES[method], provided: 'identify' });
      return undefined;
    },
  });
  return Object.assign(server, { channels, users });
}
