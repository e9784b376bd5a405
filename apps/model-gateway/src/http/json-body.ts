import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

/**
 * Why a body could not be read; `type` is the body-parser name the error mapping knows
 * (http/errors.ts BODY_ERRORS), so the model endpoints answer exactly as they did behind express.json.
 */
export class BodyReadError extends Error {
  constructor(
    readonly type: 'entity.too.large' | 'entity.parse.failed' | 'encoding.unsupported' | 'encoding.corrupt' | 'charset.unsupported' | 'request.aborted',
    message: string,
  ) {
    super(message);
  }
}

function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');
}

function charsetOf(contentType: string | undefined): string | null {
  const match = contentType ? /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType) : null;
  return match ? match[1]!.toLowerCase() : null;
}

function decoded(req: IncomingMessage): Readable {
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  switch (encoding) {
    case 'identity':
      return req;
    case 'gzip':
    case 'x-gzip':
      return req.pipe(createGunzip());
    case 'deflate':
      return req.pipe(createInflate());
    case 'br':
      return req.pipe(createBrotliDecompress());
    default:
      throw new BodyReadError('encoding.unsupported', `unsupported content encoding "${encoding}"`);
  }
}

/**
 * The raw body of a request, read once, decoded (gzip, deflate, br): undefined when there is none.
 * The limit applies to the decoded size, and a Content-Length over it is refused before reading.
 */
export function readRawBody(req: IncomingMessage, limitBytes: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    if (!hasBody(req)) {
      resolve(undefined);
      return;
    }
    const declared = Number(req.headers['content-length']);
    if (req.headers['content-encoding'] === undefined && Number.isFinite(declared) && declared > limitBytes) {
      reject(new BodyReadError('entity.too.large', 'request entity too large'));
      return;
    }
    let source: Readable;
    try {
      source = decoded(req);
    } catch (err) {
      reject(err);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const fail = (err: BodyReadError) => {
      if (done) return;
      done = true;
      if (source !== req) source.destroy();
      req.unpipe();
      reject(err);
    };
    source.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limitBytes) fail(new BodyReadError('entity.too.large', 'request entity too large'));
      else chunks.push(chunk);
    });
    source.on('error', () => fail(source === req ? new BodyReadError('request.aborted', 'request aborted') : new BodyReadError('encoding.corrupt', 'the body could not be decompressed')));
    req.on('aborted', () => fail(new BodyReadError('request.aborted', 'request aborted')));
    source.on('end', () => {
      if (done) return;
      done = true;
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
  });
}

/**
 * The JSON body of a request, read once, for the model endpoints that authenticate before reading
 * (so a bad key never costs a large upload). What express.json (strict) did: no body is undefined,
 * an empty one {}; the limit applies to the decoded size and a Content-Length over it is refused
 * before reading; gzip, deflate and br; UTF-8 only; the top level must be an object or an array.
 */
export async function readJsonBody(req: IncomingMessage, limitBytes: number): Promise<unknown> {
  if (!hasBody(req)) return undefined;
  const charset = charsetOf(req.headers['content-type']);
  if (charset !== null && charset !== 'utf-8' && charset !== 'utf8') throw new BodyReadError('charset.unsupported', `unsupported charset "${charset}"`);
  const raw = await readRawBody(req, limitBytes);
  const text = raw ? raw.toString('utf8') : '';
  const first = /\S/.exec(text)?.[0];
  if (first === undefined) return {};
  if (first !== '{' && first !== '[') throw new BodyReadError('entity.parse.failed', 'the body is not a JSON object or array');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new BodyReadError('entity.parse.failed', 'the body is not valid JSON');
  }
}

/** Reads the rest of a request body and throws it away; resolves when it ended or the connection closed. */
export function discardRest(req: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    if (req.complete || req.destroyed) {
      resolve();
      return;
    }
    req.on('end', resolve);
    req.on('close', resolve);
    req.on('error', () => resolve());
    req.unpipe();
    req.resume();
  });
}

/** A JSON answer, without express: the model endpoints' hot path. */
export function sendJson(res: ServerResponse, status: number, headers: Record<string, string>, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
