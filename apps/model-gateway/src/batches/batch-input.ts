import type { CapturedEndpoint } from '../model/model-routes';

/** The endpoints a batch line may name (OpenAI's batch `url`); /v1/responses is OpenAI's responses format. Each runs through the model pipeline's captured request. */
export const BATCH_LINE_ENDPOINTS = ['/v1/chat/completions', '/v1/embeddings', '/v1/responses'] as const satisfies readonly CapturedEndpoint[];
export type BatchLineEndpoint = (typeof BATCH_LINE_ENDPOINTS)[number];

/** One request line of a batch input file, as OpenAI's Batch API defines it. */
export interface BatchRequestLine {
  customId: string;
  url: BatchLineEndpoint;
  body: Record<string, unknown>;
}

/** Why an input file was refused; `line` is 1-based, as an editor shows it. */
export class BatchInputError extends Error {
  constructor(
    readonly code: 'invalid_batch_file' | 'duplicate_custom_id' | 'too_many_lines',
    message: string,
    readonly line: number | null = null,
  ) {
    super(message);
  }
}

const CUSTOM_ID_MAX = 512;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Parses and validates a batch input file (JSONL): every line `{custom_id, method: "POST", url, body}`
 * with a unique custom_id, url one of /v1/chat/completions, /v1/embeddings, /v1/responses, a body
 * object that does not stream. The first problem is reported naming its line (and custom_id when it
 * has one), so the caller knows what to fix. Blank lines at the end are ignored; CRLF is accepted.
 */
export function parseBatchInput(content: Buffer, maxLines: number): BatchRequestLine[] {
  const text = content.toString('utf8');
  if (text.includes('\uFFFD') && !Buffer.from(text, 'utf8').equals(content)) throw new BatchInputError('invalid_batch_file', 'The file is not UTF-8 text; a batch input file is JSONL in UTF-8.');
  const rawLines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  while (rawLines.length > 0 && rawLines[rawLines.length - 1]!.trim() === '') rawLines.pop();
  if (rawLines.length === 0) throw new BatchInputError('invalid_batch_file', 'The file has no request lines; each line is {"custom_id", "method": "POST", "url", "body"}.');
  if (rawLines.length > maxLines) throw new BatchInputError('too_many_lines', `The file has ${rawLines.length} lines; a batch takes at most ${maxLines}. Split it into several batches.`);
  const seen = new Map<string, number>();
  const lines: BatchRequestLine[] = [];
  rawLines.forEach((raw, index) => {
    const n = index + 1;
    const fail = (message: string, customId?: string): never => {
      throw new BatchInputError('invalid_batch_file', `Line ${n}${customId !== undefined ? ` (custom_id "${customId}")` : ''}: ${message}`, n);
    };
    if (raw.trim() === '') fail('is empty; every line must be one JSON request object.');
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      fail('is not valid JSON; every line must be one JSON object.');
    }
    if (!isRecord(parsed)) return fail('is not a JSON object.');
    const customId = parsed.custom_id;
    if (typeof customId !== 'string' || customId === '') return fail('custom_id must be a non-empty string.');
    if (customId.length > CUSTOM_ID_MAX) fail(`custom_id is longer than ${CUSTOM_ID_MAX} characters.`);
    const earlier = seen.get(customId);
    if (earlier !== undefined) throw new BatchInputError('duplicate_custom_id', `Line ${n}: custom_id "${customId}" is already used on line ${earlier}; each line needs its own custom_id.`, n);
    seen.set(customId, n);
    if (parsed.method !== 'POST') fail(`method must be "POST" (got ${JSON.stringify(parsed.method ?? null)}).`, customId);
    const url = parsed.url;
    if (typeof url !== 'string' || !(BATCH_LINE_ENDPOINTS as readonly string[]).includes(url)) {
      fail(`url must be one of ${BATCH_LINE_ENDPOINTS.join(', ')} (got ${JSON.stringify(url ?? null)}).`, customId);
    }
    const body = parsed.body;
    if (!isRecord(body)) return fail('body must be a JSON object: the request the url takes.', customId);
    if (body.stream === true) fail('body.stream is true; batch lines cannot stream.', customId);
    lines.push({ customId, url: url as BatchLineEndpoint, body });
  });
  return lines;
}
