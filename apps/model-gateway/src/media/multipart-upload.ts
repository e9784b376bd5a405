import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GatewayError } from '../http/errors';

/** One uploaded file, spooled to a temporary file as it arrived (never held in memory whole). */
export interface UploadedFile {
  field: string;
  filename: string;
  contentType: string;
  path: string;
  bytes: number;
}

export interface MultipartUpload {
  fields: Map<string, string>;
  files: UploadedFile[];
  /** Deletes the spooled files; call once the request is answered. */
  dispose(): Promise<void>;
}

export interface UploadLimits {
  /** Largest sum of the uploaded files' sizes (20 MB images, 25 MB audio): past it, 413 payload_too_large while reading. */
  fileBytes: number;
  /** What the limit is for, in the 413's message ("audio file", "images"). */
  what: string;
  /** Largest text field (prompt, model…). */
  fieldBytes: number;
  maxFiles: number;
}

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');
/** Framing allowed around the files (part headers, text fields) in a Content-Length check before reading. */
export const MULTIPART_OVERHEAD_BYTES = 256 * 1024;

function tooLarge(limits: UploadLimits): GatewayError {
  const mb = limits.fileBytes / (1024 * 1024);
  return new GatewayError(413, 'invalid_request_error', `The ${limits.what} is over ${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB, the limit on this endpoint; send a smaller file.`, 'payload_too_large', { connection: 'close' }, 'file');
}

function badForm(message: string): GatewayError {
  return new GatewayError(400, 'invalid_request_error', message, 'invalid_request_body');
}

/**
 * Reads a multipart/form-data request as it streams in: text fields into memory (each up to
 * `fieldBytes`), files straight to temporary files, counting their bytes. The upload is refused (413
 * payload_too_large) the moment the files pass `fileBytes`, or before reading at all when the declared
 * Content-Length already does, so memory holds at most one network chunk of a file and a refused
 * upload is never read to its end. The caller answers and closes the connection on a refusal.
 */
export async function readMultipartUpload(req: IncomingMessage, limits: UploadLimits): Promise<MultipartUpload> {
  const contentType = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data/i.test(contentType)) throw badForm(`Send this endpoint multipart/form-data (got ${contentType === '' ? 'no Content-Type' : `"${contentType.split(';')[0]}"`}).`);
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const token = boundary?.[1] ?? boundary?.[2];
  if (!token) throw badForm('The multipart Content-Type has no boundary.');
  if (req.headers['content-encoding'] !== undefined && req.headers['content-encoding'] !== 'identity') throw badForm('Compressed multipart uploads are not accepted; send the form uncompressed.');
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limits.fileBytes + MULTIPART_OVERHEAD_BYTES) throw tooLarge(limits);

  const dir = await mkdtemp(path.join(tmpdir(), 'patchbay-upload-'));
  const fields = new Map<string, string>();
  const files: UploadedFile[] = [];
  const dispose = () => rm(dir, { recursive: true, force: true });
  const delimiter = Buffer.from(`\r\n--${token}`);
  // The body starts with `--boundary` (no CRLF before it): prefixing CRLF lets one delimiter match every boundary.
  let buffer: Buffer = Buffer.from('\r\n');
  // Widened on purpose: the state changes inside the loop below, which TypeScript's narrowing does not follow across iterations.
  let state = 'preamble' as 'preamble' | 'headers' | 'body' | 'done';
  let part: { name: string; filename: string | null; contentType: string; chunks: Buffer[]; size: number; out: WriteStream | null; file: UploadedFile | null } | null = null;
  let fileTotal = 0;

  const write = async (data: Buffer): Promise<void> => {
    if (!part || data.length === 0) return;
    part.size += data.length;
    if (part.file) {
      fileTotal += data.length;
      if (fileTotal > limits.fileBytes) throw tooLarge(limits);
      part.file.bytes += data.length;
      if (!part.out!.write(data)) await new Promise<void>((resolve, reject) => {
        part!.out!.once('drain', resolve);
        part!.out!.once('error', reject);
      });
    } else {
      if (part.size > limits.fieldBytes) throw badForm(`The form field "${part.name}" is over ${limits.fieldBytes} bytes.`);
      part.chunks.push(data);
    }
  };
  const endPart = async (): Promise<void> => {
    if (!part) return;
    if (part.out) await new Promise<void>((resolve, reject) => part!.out!.end((err?: Error | null) => (err ? reject(err) : resolve())));
    else fields.set(part.name, Buffer.concat(part.chunks).toString('utf8'));
    part = null;
  };
  const startPart = (headerText: string): void => {
    const disposition = /content-disposition:[^\r\n]*/i.exec(headerText)?.[0] ?? '';
    const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
    if (name === undefined) throw badForm('A form part has no Content-Disposition name.');
    const filename = /\bfilename="([^"]*)"/i.exec(disposition)?.[1] ?? null;
    const type = /content-type:\s*([^\r\n]+)/i.exec(headerText)?.[1]?.trim() ?? 'application/octet-stream';
    let file: UploadedFile | null = null;
    let out: WriteStream | null = null;
    if (filename !== null) {
      if (files.length >= limits.maxFiles) throw badForm(`At most ${limits.maxFiles} file${limits.maxFiles === 1 ? '' : 's'} may be uploaded here.`);
      file = { field: name, filename: filename || 'upload', contentType: type, path: path.join(dir, `part-${files.length}`), bytes: 0 };
      files.push(file);
      out = createWriteStream(file.path);
    }
    part = { name, filename, contentType: type, chunks: [], size: 0, out, file };
  };

  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      if (state === 'body' && buffer.length > 0 && buffer.length < delimiter.length) {
        // The usual case inside a file: a few held-back bytes and a new chunk. Unless a delimiter spans the
        // two, the held-back bytes are file data and the chunk is scanned in place (copying every chunk
        // onto the held-back bytes would allocate the whole file once more).
        const joint = Buffer.concat([buffer, chunk.subarray(0, delimiter.length - 1)]);
        if (joint.indexOf(delimiter) === -1) {
          await write(buffer);
          buffer = chunk;
        } else {
          buffer = Buffer.concat([buffer, chunk]);
        }
      } else {
        buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
      }
      for (;;) {
        if (state === 'done') break;
        if (state === 'preamble' || state === 'body') {
          const at = buffer.indexOf(delimiter);
          if (at === -1) {
            // Keep what could be the start of a delimiter; the rest is part data.
            const keep = Math.min(buffer.length, delimiter.length - 1);
            if (state === 'body') await write(buffer.subarray(0, buffer.length - keep));
            buffer = buffer.subarray(buffer.length - keep);
            break;
          }
          if (state === 'body') {
            await write(buffer.subarray(0, at));
            await endPart();
          }
          const after = at + delimiter.length;
          if (buffer.length < after + 2) {
            buffer = buffer.subarray(at);
            // Wait for the two bytes after the delimiter: "--" ends the form, CRLF starts a part.
            if (state === 'body') state = 'preamble';
            break;
          }
          if (buffer[after] === 0x2d && buffer[after + 1] === 0x2d) {
            state = 'done';
            break;
          }
          buffer = buffer.subarray(after + CRLF.length);
          state = 'headers';
        }
        if (state === 'headers') {
          const end = buffer.indexOf(HEADER_END);
          if (end === -1) {
            if (buffer.length > 16 * 1024) throw badForm('A form part has over 16 KB of headers.');
            break;
          }
          startPart(buffer.subarray(0, end).toString('utf8'));
          buffer = buffer.subarray(end + HEADER_END.length);
          state = 'body';
        }
      }
    }
    if (state !== 'done') throw badForm('The multipart body ended before its closing boundary.');
    for (const file of files) file.bytes = (await stat(file.path)).size;
    return { fields, files, dispose };
  } catch (err) {
    const open = part as { out: WriteStream | null } | null;
    open?.out?.destroy();
    await dispose();
    throw err;
  }
}
