import { FakeRoutes, startFakeServer, type FakeReply, type FakeRequest, type FakeServer } from './fake-server';
import { googleBefore, googleError, googleNotFound, pageToken, type GoogleFakeTokens } from './google-common';

export const GMAIL_FAKE_TOKENS: GoogleFakeTokens = {
  valid: 'ya29.fake-gmail-valid',
  rateLimited403: 'ya29.fake-gmail-rate-limited-403',
  rateLimited429: 'ya29.fake-gmail-rate-limited-429',
  failing: 'ya29.fake-gmail-failing',
};

export const GMAIL_FAKE_USER = 'me@example.com';

interface Part {
  partId: string;
  mimeType: string;
  filename: string;
  headers: Array<{ name: string; value: string }>;
  body: { size: number; data?: string; attachmentId?: string };
  parts?: Part[];
}

export interface FakeGmailMessage {
  id: string;
  threadId: string;
  labelIds: string[];
  snippet: string;
  internalDate: string;
  payload: Part;
  /** The decoded headers and plain-text body, for tests to read what was sent. */
  decoded: { headers: Record<string, string>; body: string };
}

const SYSTEM_LABELS = ['INBOX', 'SENT', 'DRAFT', 'UNREAD', 'STARRED', 'IMPORTANT', 'SPAM', 'TRASH', 'CATEGORY_PERSONAL', 'CATEGORY_UPDATES'];
const USER_LABELS = [
  { id: 'Label_1', name: 'Customers' },
  { id: 'Label_2', name: 'Receipts' },
];

const b64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
const notFound = () => googleNotFound('Requested entity was not found.');
const invalidArgument = (message: string) => googleError(400, 'INVALID_ARGUMENT', message, 'invalidArgument');

function textPart(partId: string, mimeType: string, text: string): Part {
  return { partId, mimeType, filename: '', headers: [{ name: 'Content-Type', value: `${mimeType}; charset="UTF-8"` }], body: { size: Buffer.byteLength(text), data: b64url(text) } };
}

/** RFC 2047 B-encoded words back to text (what a mail client shows). */
function decodeWords(value: string): string {
  return value.replace(/\?=\s+=\?/g, '?==?').replace(/=\?UTF-8\?B\?([^?]*)\?=/gi, (_m, b64: string) => Buffer.from(b64, 'base64').toString('utf8'));
}

/** Splits an RFC 2822 message into unfolded headers and its body, decoding a base64 body. */
export function parseRawMessage(raw: string): { headers: Record<string, string>; body: string } | undefined {
  const text = Buffer.from(raw, 'base64url').toString('utf8');
  const split = text.indexOf('\r\n\r\n');
  if (split < 0) return undefined;
  const headers: Record<string, string> = {};
  for (const line of text.slice(0, split).replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) return undefined;
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = text.slice(split + 4);
  if ((headers['content-transfer-encoding'] ?? '').toLowerCase() === 'base64') body = Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  return { headers, body };
}

/**
 * A fake of the Gmail API v1 under /gmail/v1/users/{userId}: messages (list with Gmail's search
 * operators and page tokens, get in full/metadata/minimal format, send, modify), drafts.create and
 * labels.list, with Google's error bodies and rate-limit answers.
 */
export async function startFakeGmail(seed: { messages: number } = { messages: 6 }): Promise<FakeServer & { messages: FakeGmailMessage[] }> {
  let counter = 0;
  const newId = () => `18d2a3f4c5b6${(0xe700 + counter++).toString(16)}`;
  const base = Date.UTC(2026, 1, 1, 9);

  const build = (o: { id?: string; threadId?: string; from: string; to: string; cc?: string; subject: string; text?: string; html?: string; attachment?: { filename: string; mimeType: string; size: number }; labels: string[]; at: number; messageId?: string; inReplyTo?: string }): FakeGmailMessage => {
    const id = o.id ?? newId();
    const headers = [
      { name: 'From', value: o.from },
      { name: 'To', value: o.to },
      ...(o.cc ? [{ name: 'Cc', value: o.cc }] : []),
      { name: 'Subject', value: o.subject },
      { name: 'Date', value: new Date(o.at).toUTCString().replace('GMT', '+0000') },
      { name: 'Message-ID', value: o.messageId ?? `<${id}@mail.example.com>` },
      ...(o.inReplyTo ? [{ name: 'In-Reply-To', value: o.inReplyTo }] : []),
      { name: 'MIME-Version', value: '1.0' },
    ];
    const alternatives: Part[] = [];
    if (o.text !== undefined) alternatives.push(textPart('0', 'text/plain', o.text));
    if (o.html !== undefined) alternatives.push(textPart(String(alternatives.length), 'text/html', o.html));
    let payload: Part;
    if (o.attachment) {
      const alt: Part = { partId: '0', mimeType: 'multipart/alternative', filename: '', headers: [], body: { size: 0 }, parts: alternatives.map((p, i) => ({ ...p, partId: `0.${i}` })) };
      const file: Part = { partId: '1', mimeType: o.attachment.mimeType, filename: o.attachment.filename, headers: [{ name: 'Content-Disposition', value: `attachment; filename="${o.attachment.filename}"` }], body: { size: o.attachment.size, attachmentId: `ANGjdJ_${id}` } };
      payload = { partId: '', mimeType: 'multipart/mixed', filename: '', headers, body: { size: 0 }, parts: [alt, file] };
    } else if (alternatives.length === 1) {
      payload = { ...alternatives[0]!, partId: '', headers: [...headers, ...alternatives[0]!.headers] };
    } else {
      payload = { partId: '', mimeType: 'multipart/alternative', filename: '', headers, body: { size: 0 }, parts: alternatives };
    }
    const plain = o.text ?? (o.html ?? '').replace(/<[^>]+>/g, '');
    return {
      id,
      threadId: o.threadId ?? id,
      labelIds: o.labels,
      snippet: plain.replace(/\s+/g, ' ').slice(0, 100),
      internalDate: String(o.at),
      payload,
      decoded: { headers: Object.fromEntries(headers.map((h) => [h.name.toLowerCase(), h.value])), body: plain },
    };
  };

  const senders = ['ana@example.com', 'billing@vendor.example', 'bob@example.org'];
  const messages: FakeGmailMessage[] = Array.from({ length: seed.messages }, (_, i) => {
    const from = senders[i % senders.length]!;
    const at = base + i * 3_600_000;
    if (i === 1) return build({ from: `Vendor Billing <${from}>`, to: GMAIL_FAKE_USER, subject: 'Your invoice', html: '<p>Invoice <b>#42</b> is due.</p><p>Thanks &amp; regards</p>', attachment: { filename: 'invoice-42.pdf', mimeType: 'application/pdf', size: 52311 }, labels: ['INBOX', 'Label_2'], at });
    if (i === 2) return build({ from, to: GMAIL_FAKE_USER, subject: 'Café ☕ demain ?', text: 'On se voit à 10 h ?\nÀ demain', labels: ['INBOX', 'UNREAD', 'CATEGORY_PERSONAL'], at });
    return build({ from: i === 0 ? `Ana Lima <${from}>` : from, to: GMAIL_FAKE_USER, subject: `Message ${i + 1}`, text: `Hello, this is message ${i + 1}.\n\nBest,\n${from}`, html: `<p>Hello, this is message ${i + 1}.</p>`, labels: i % 2 === 0 ? ['INBOX', 'UNREAD'] : ['INBOX'], at });
  });
  const drafts: Array<{ id: string; message: FakeGmailMessage }> = [];
  const validLabel = (id: string) => SYSTEM_LABELS.includes(id) || USER_LABELS.some((l) => l.id === id);
  const find = (id: string) => messages.find((m) => m.id === id);

  /** The Gmail search operators the fake knows: from:, to:, subject:, is:unread/starred, in:/label:, has:attachment, plain words. */
  const matches = (m: FakeGmailMessage, q: string): boolean => {
    const terms = q.match(/(?:[^\s"]+:"[^"]*"|[^\s"]+|"[^"]*")/g) ?? [];
    return terms.every((term) => {
      const [op, ...rest] = term.split(':');
      const value = rest.join(':').replace(/^"|"$/g, '').toLowerCase();
      const h = m.decoded.headers;
      switch (rest.length > 0 ? op!.toLowerCase() : '') {
        case 'from':
          return (h.from ?? '').toLowerCase().includes(value);
        case 'to':
          return `${h.to ?? ''} ${h.cc ?? ''}`.toLowerCase().includes(value);
        case 'subject':
          return decodeWords(h.subject ?? '').toLowerCase().includes(value);
        case 'is':
          return m.labelIds.includes(value.toUpperCase());
        case 'in':
        case 'label': {
          const label = USER_LABELS.find((l) => l.name.toLowerCase() === value)?.id ?? value.toUpperCase();
          return m.labelIds.includes(label);
        }
        case 'has':
          return value === 'attachment' && JSON.stringify(m.payload).includes('"attachmentId"');
        default: {
          const word = term.replace(/^"|"$/g, '').toLowerCase();
          return `${decodeWords(h.subject ?? '')} ${h.from ?? ''} ${m.decoded.body}`.toLowerCase().includes(word);
        }
      }
    });
  };

  const render = (m: FakeGmailMessage, format: string, metadataHeaders: string[]) => {
    const common = { id: m.id, threadId: m.threadId, labelIds: m.labelIds, snippet: m.snippet, sizeEstimate: JSON.stringify(m.payload).length, historyId: '98765', internalDate: m.internalDate };
    if (format === 'minimal') return common;
    if (format === 'metadata') {
      const wanted = metadataHeaders.map((n) => n.toLowerCase());
      const headers = m.payload.headers.filter((h) => wanted.length === 0 || wanted.includes(h.name.toLowerCase()));
      return { ...common, payload: { mimeType: m.payload.mimeType, headers } };
    }
    return { ...common, payload: m.payload };
  };

  /** A sent or drafted message from `raw`, as Gmail stores it. */
  const fromRaw = (raw: unknown, labels: string[], threadId: string | undefined): FakeGmailMessage | FakeReply => {
    if (typeof raw !== 'string' || raw === '') return invalidArgument("'raw' RFC822 payload message string or uploading message via /upload/* URL required");
    const parsed = parseRawMessage(raw);
    if (!parsed) return invalidArgument('Invalid RFC 2822 message.');
    if (threadId !== undefined && !messages.some((m) => m.threadId === threadId)) return notFound();
    const id = newId();
    const h = parsed.headers;
    const message = build({ id, threadId: threadId ?? id, from: GMAIL_FAKE_USER, to: h.to ?? '', cc: h.cc, subject: h.subject ?? '', text: parsed.body, labels, at: base + 365 * 86_400_000 + counter, inReplyTo: h['in-reply-to'] });
    message.decoded = { headers: { ...h, from: GMAIL_FAKE_USER }, body: parsed.body };
    return message;
  };

  const routes = new FakeRoutes()
    .route('GET', '/gmail/v1/users/:userId/messages', (req) => {
      const max = Math.min(Number(req.query.get('maxResults') ?? 100), 500);
      const offset = pageToken.decode(req.query.get('pageToken'));
      if (offset === undefined) return invalidArgument('Invalid pageToken');
      const labelIds = req.query.getAll('labelIds');
      const withSpamTrash = req.query.get('includeSpamTrash') === 'true';
      const q = req.query.get('q') ?? '';
      const found = messages
        .filter((m) => withSpamTrash || !m.labelIds.some((l) => l === 'SPAM' || l === 'TRASH'))
        .filter((m) => !m.labelIds.includes('DRAFT'))
        .filter((m) => labelIds.every((l) => m.labelIds.includes(l)))
        .filter((m) => matches(m, q))
        .sort((a, b) => Number(b.internalDate) - Number(a.internalDate));
      const page = found.slice(offset, offset + max);
      const body: Record<string, unknown> = { resultSizeEstimate: found.length };
      // Gmail leaves `messages` out entirely when nothing matches.
      if (page.length > 0) body.messages = page.map((m) => ({ id: m.id, threadId: m.threadId }));
      if (offset + max < found.length) body.nextPageToken = pageToken.encode(offset + max);
      return { body };
    })
    .route('GET', '/gmail/v1/users/:userId/messages/:id', (req) => {
      if (!/^[0-9a-f]{16}$/.test(req.params.id!)) return invalidArgument('Invalid id value');
      const m = find(req.params.id!);
      if (!m) return notFound();
      const format = req.query.get('format') ?? 'full';
      if (!['full', 'metadata', 'minimal', 'raw'].includes(format)) return invalidArgument(`Invalid value at 'format' (TYPE_ENUM), "${format}"`);
      return { body: render(m, format, req.query.getAll('metadataHeaders')) };
    })
    .route('POST', '/gmail/v1/users/:userId/messages/send', (req) => {
      const body = (req.json ?? {}) as { raw?: unknown; threadId?: string };
      const message = fromRaw(body.raw, ['SENT'], body.threadId);
      if (!('id' in message)) return message;
      const h = message.decoded.headers;
      if (!h.to && !h.cc && !h.bcc) return invalidArgument('Recipient address required');
      messages.push(message);
      return { body: { id: message.id, threadId: message.threadId, labelIds: message.labelIds } };
    })
    .route('POST', '/gmail/v1/users/:userId/drafts', (req) => {
      const body = (req.json ?? {}) as { message?: { raw?: unknown; threadId?: string } };
      const message = fromRaw(body.message?.raw, ['DRAFT'], body.message?.threadId);
      if (!('id' in message)) return message;
      messages.push(message);
      const draft = { id: `r${message.id.slice(-8)}`, message };
      drafts.push(draft);
      return { body: { id: draft.id, message: { id: message.id, threadId: message.threadId, labelIds: message.labelIds } } };
    })
    .route('GET', '/gmail/v1/users/:userId/labels', () => ({
      body: {
        labels: [
          ...SYSTEM_LABELS.map((id) => ({ id, name: id, type: 'system', ...(id.startsWith('CATEGORY_') ? {} : { messageListVisibility: 'hide', labelListVisibility: 'labelHide' }) })),
          ...USER_LABELS.map((l) => ({ ...l, type: 'user', messageListVisibility: 'show', labelListVisibility: 'labelShow' })),
        ],
      },
    }))
    .route('POST', '/gmail/v1/users/:userId/messages/:id/modify', (req) => {
      const m = find(req.params.id!);
      if (!m) return notFound();
      const body = (req.json ?? {}) as { addLabelIds?: string[]; removeLabelIds?: string[] };
      const bad = [...(body.addLabelIds ?? []), ...(body.removeLabelIds ?? [])].find((l) => !validLabel(l));
      if (bad) return invalidArgument(`Invalid label: ${bad}`);
      m.labelIds = [...m.labelIds.filter((l) => !(body.removeLabelIds ?? []).includes(l)), ...(body.addLabelIds ?? []).filter((l) => !m.labelIds.includes(l))];
      return { body: { id: m.id, threadId: m.threadId, labelIds: m.labelIds } };
    });

  const auth = googleBefore(GMAIL_FAKE_TOKENS);
  const server = await startFakeServer({
    routes,
    notFound: notFound(),
    before: (req: FakeRequest): FakeReply | undefined => {
      const failed = auth(req);
      if (failed) return failed;
      const user = req.params.userId;
      if (user !== undefined && user !== 'me' && user !== GMAIL_FAKE_USER) return googleError(403, 'PERMISSION_DENIED', `Delegation denied for ${GMAIL_FAKE_USER}`, 'forbidden');
      return undefined;
    },
  });
  return Object.assign(server, { messages });
}
