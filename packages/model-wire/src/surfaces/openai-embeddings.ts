import { WireError } from '../errors';
import type { CanonicalEmbeddings, ParsedEmbeddingsRequest } from '../types';
import { parseGatewayFields, requireObject } from './common';
import { ShapeReader } from './shape';

/** OpenAI `POST /embeddings`: input is a string, a list of strings, a token list or a list of token lists. */
export function parseEmbeddingsRequest(body: unknown): ParsedEmbeddingsRequest {
  const obj = requireObject(body, 'invalid_request_body', 'The request body');
  const shape = new ShapeReader(false);
  const gateway = parseGatewayFields(obj, shape, false);
  const encoding = shape.literal(obj, 'encoding_format', [], ['float', 'base64'] as const) ?? 'float';
  const dimensions = shape.number(obj, 'dimensions', [], { integer: true, min: 1 }) ?? null;
  const input = obj.input;
  const empty = (): never => {
    throw WireError.invalid('empty_input', 'input is empty: send a string or a non-empty list of strings.', 'input');
  };
  let texts: Array<string | number[]>;
  if (typeof input === 'string') texts = input === '' ? empty() : [input];
  else if (Array.isArray(input)) {
    if (input.length === 0) empty();
    if (input.every((v) => typeof v === 'number')) texts = [input as number[]];
    else {
      texts = input.map((item, i) => {
        if (typeof item === 'string') return item === '' ? empty() : item;
        if (Array.isArray(item) && item.length > 0 && item.every((v) => Number.isInteger(v))) return item as number[];
        throw WireError.invalid('invalid_request_body', `input[${i}] must be a non-empty string or a list of token ids.`, `input[${i}]`);
      });
    }
    if (texts.length > 2048) throw WireError.invalid('invalid_request_body', `input holds ${texts.length} items; at most 2048 per request.`, 'input');
  } else if (input === undefined || input === null) texts = empty();
  else throw WireError.invalid('invalid_request_body', 'input must be a string or a list of strings.', 'input');
  return {
    surface: 'openai-embeddings',
    request: { input: texts, encodingFormat: encoding, dimensions, endUserId: gateway.user },
    gateway,
    warnings: [],
  };
}

/** Base64 of the vector's little-endian float32 bytes, as OpenAI sends it and openai-node decodes it. */
export function float32Base64(vector: Float32Array): string {
  const bytes = Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
  if (isLittleEndian) return bytes.toString('base64');
  const copy = Buffer.from(bytes);
  copy.swap32();
  return copy.toString('base64');
}

/** The reverse of float32Base64, for vendors that answer in base64. */
export function base64Float32(data: string): Float32Array {
  const bytes = Buffer.from(data, 'base64');
  if (!isLittleEndian) bytes.swap32();
  const out = new Float32Array(bytes.byteLength / 4);
  new Uint8Array(out.buffer).set(bytes.subarray(0, out.length * 4));
  return out;
}

/** JSON numbers: as the vendor sent them, or float32 values at float32's own precision (no 0.10000000149…). */
function floats(vector: number[] | Float32Array): number[] {
  if (Array.isArray(vector)) return vector;
  const out = new Array<number>(vector.length);
  for (let i = 0; i < vector.length; i++) out[i] = Number(vector[i]!.toPrecision(9));
  return out;
}

const isLittleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The embeddings response body (`{object: "list", data, model, usage}`), floats or base64 as the client asked. */
export function renderEmbeddings(result: CanonicalEmbeddings, encoding: 'float' | 'base64', model: string, extras: { costUsd?: number } = {}): unknown {
  return {
    object: 'list',
    data: result.vectors.map((vector, index) => ({
      object: 'embedding',
      index,
      embedding: encoding === 'base64' ? float32Base64(vector instanceof Float32Array ? vector : Float32Array.from(vector)) : floats(vector),
    })),
    model,
    usage: {
      prompt_tokens: result.usage.inputTokens,
      total_tokens: result.usage.inputTokens,
      ...(extras.costUsd !== undefined ? { cost_usd: extras.costUsd } : {}),
    },
  };
}
