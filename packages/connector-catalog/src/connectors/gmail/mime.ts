import { ToolError } from '../../core/tool-error';

/**
 * Builds the RFC 2822 / MIME message Gmail's send and draft endpoints take as base64url `raw`, and
 * reads bodies back out of Gmail's parsed MIME tree.
 */
export interface OutgoingMessage {
  to: string[];
  cc?: string[];
  bcc?: string[];
  subject: string;
  body: string;
  /** Message-ID of the message answered, so mail clients thread the reply. */
  inReplyTo?: string;
  references?: string;
}

/** RFC 2047 encoded-words for a header with non-ASCII text, each under the 75-character limit. */
export function encodeHeaderValue(value: string): string {
  if (/^[\x20-\x7e]*$/.test(value)) return value;
  const words: string[] = [];
  let chunk = '';
  for (const ch of value) {
    // 45 bytes of UTF-8 make 60 base64 characters, 72 with the =?UTF-8?B?...?= wrapper.
    if (Buffer.byteLength(chunk + ch) > 45) {
      words.push(chunk);
      chunk = '';
    }
    chunk += ch;
  }
  if (chunk) words.push(chunk);
  return words.map((w) => `=?UTF-8?B?${Buffer.from(w, 'utf8').toString('base64')}?=`).join('\r\n ');
}

function wrap76(base64: string): string {
  return base64.match(/.{1,76}/g)?.join('\r\n') ?? '';
}

/** The complete message text with CRLF line ends; the body goes as base64 so any text survives. */
export function buildMessage(msg: OutgoingMessage): string {
  // A line break in a header value would let the value add headers of its own (Bcc: ...).
  for (const value of [...msg.to, ...(msg.cc ?? []), ...(msg.bcc ?? []), msg.subject, msg.inReplyTo ?? '', msg.references ?? '']) {
    if (/[\r\n]/.test(value)) throw new ToolError('invalid_input', 'Recipients, subject and in_reply_to must not contain line breaks.');
  }
  const headers: string[] = [];
  headers.push(`To: ${msg.to.join(', ')}`);
  if (msg.cc?.length) headers.push(`Cc: ${msg.cc.join(', ')}`);
  if (msg.bcc?.length) headers.push(`Bcc: ${msg.bcc.join(', ')}`);
  headers.push(`Subject: ${encodeHeaderValue(msg.subject)}`);
  if (msg.inReplyTo) {
    headers.push(`In-Reply-To: ${msg.inReplyTo}`);
    headers.push(`References: ${msg.references ?? msg.inReplyTo}`);
  }
  headers.push('MIME-Version: 1.0');
  headers.push('Content-Type: text/plain; charset="UTF-8"');
  headers.push('Content-Transfer-Encoding: base64');
  return `${headers.join('\r\n')}\r\n\r\n${wrap76(Buffer.from(msg.body.replace(/\r?\n/g, '\r\n'), 'utf8').toString('base64'))}\r\n`;
}

export function toRaw(msg: OutgoingMessage): string {
  return Buffer.from(buildMessage(msg), 'utf8').toString('base64url');
}

export interface GmailPart {
  partId?: string;
  mimeType?: string;
  filename?: string;
  headers?: Array<{ name: string; value: string }>;
  body?: { size?: number; data?: string; attachmentId?: string };
  parts?: GmailPart[];
}

export interface Attachment {
  filename: string;
  mime_type: string;
  size: number;
  attachment_id: string | null;
}

function header(part: GmailPart, name: string): string | undefined {
  return part.headers?.find((h) => h.name.toLowerCase() === name.toLowerCase())?.value;
}

function isAttachment(part: GmailPart): boolean {
  return Boolean(part.filename) || /^attachment/i.test(header(part, 'Content-Disposition') ?? '');
}

function decode(data: string | undefined): string {
  return data ? Buffer.from(data, 'base64url').toString('utf8') : '';
}

/** Text an HTML-only message shows, roughly: tags dropped, blocks as line breaks, common entities decoded. */
export function htmlToText(html: string): string {
  return html
    .replace(/<(script|style|head)[\s\S]*?<\/\1>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|li|tr|h[1-6])>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The readable body (text/plain parts, else text/html converted) and the attachments of a message. */
export function readBody(payload: GmailPart | undefined): { text: string; attachments: Attachment[] } {
  const plain: string[] = [];
  const html: string[] = [];
  const attachments: Attachment[] = [];
  const walk = (part: GmailPart) => {
    if (isAttachment(part)) {
      attachments.push({ filename: part.filename ?? '', mime_type: part.mimeType ?? 'application/octet-stream', size: part.body?.size ?? 0, attachment_id: part.body?.attachmentId ?? null });
      return;
    }
    const type = (part.mimeType ?? '').toLowerCase();
    if (type === 'text/plain') plain.push(decode(part.body?.data));
    else if (type === 'text/html') html.push(decode(part.body?.data));
    for (const child of part.parts ?? []) walk(child);
  };
  if (payload) walk(payload);
  const text = plain.length > 0 ? plain.join('\n') : html.map(htmlToText).join('\n');
  return { text: text.replace(/\r\n/g, '\n'), attachments };
}
