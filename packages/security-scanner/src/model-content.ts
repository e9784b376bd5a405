import type { Scanner } from './scanner';
import type { BlockedBy, Detection, ScanDirection } from './types';

/**
 * The parts of a canonical model message (@patchbay/model-wire) that carry text, typed structurally so
 * this package keeps no dependencies. Blocks of other types (images, documents, thinking) pass untouched:
 * media is not text, and signed thinking must go back to the vendor unchanged.
 */
export interface ModelBlockLike {
  type: string;
  /** text blocks */
  text?: string;
  /** tool_use blocks: the arguments as a JSON value */
  input?: unknown;
  /** tool_use blocks: the arguments as the model wrote them; rewritten from `input` when it is redacted */
  inputJson?: string;
  /** tool_result blocks: their content blocks */
  content?: ReadonlyArray<ModelBlockLike>;
}

export interface ModelRequestLike {
  system: ReadonlyArray<{ type: string; text: string }>;
  messages: ReadonlyArray<{ role: string; content: ReadonlyArray<ModelBlockLike> }>;
}

export interface ModelScanResult<T> {
  /** A copy with redactions applied (only the changed turns and blocks are copied), or the input itself when nothing was redacted. */
  value: T;
  /** Paths point into the model content: $.messages[1].content[0].text, $.output[0].input.email. */
  detections: Detection[];
  /** The first block rule that fired, in order; null when the request or answer may proceed. */
  blocked: BlockedBy | null;
}

interface Walk {
  scanner: Scanner;
  direction: ScanDirection;
  detections: Detection[];
  blocked: BlockedBy | null;
}

function scanValue(walk: Walk, value: unknown, path: string): unknown {
  const result = walk.scanner.scan(value, walk.direction);
  for (const d of result.detections) walk.detections.push({ ...d, path: path + d.path.slice(1) });
  if (walk.blocked === null && result.blocked !== null) walk.blocked = result.blocked;
  return result.value;
}

function scanBlock(walk: Walk, block: ModelBlockLike, path: string): ModelBlockLike {
  if (block.type === 'text' && typeof block.text === 'string') {
    const text = scanValue(walk, block.text, `${path}.text`);
    return text === block.text ? block : { ...block, text: text as string };
  }
  if (block.type === 'tool_use' && block.input !== undefined) {
    const input = scanValue(walk, block.input, `${path}.input`);
    if (input === block.input) return block;
    return block.inputJson === undefined ? { ...block, input } : { ...block, input, inputJson: JSON.stringify(input) };
  }
  if (block.type === 'tool_result' && Array.isArray(block.content)) {
    const content = scanBlocks(walk, block.content, `${path}.content`);
    return content === block.content ? block : { ...block, content };
  }
  return block;
}

function scanBlocks<B extends ModelBlockLike>(walk: Walk, blocks: ReadonlyArray<B>, path: string): ReadonlyArray<B> {
  let copy: B[] | null = null;
  blocks.forEach((block, i) => {
    const out = scanBlock(walk, block, `${path}[${i}]`);
    if (out !== block) (copy ??= blocks.slice())[i] = out as B;
  });
  return copy ?? blocks;
}

/**
 * Data-loss prevention on a prompt before it goes to a model vendor: the rules' `inbound` direction
 * (what is sent out of the platform to a model, as tool arguments are sent to a tool). Scans system
 * text, and the text, tool calls and tool results of every turn.
 */
export function scanModelRequest<T extends ModelRequestLike>(scanner: Scanner, request: T): ModelScanResult<T> {
  const walk: Walk = { scanner, direction: 'inbound', detections: [], blocked: null };
  const system = scanBlocks(walk, request.system, '$.system');
  let messages: T['messages'][number][] | null = null;
  request.messages.forEach((message, i) => {
    const content = scanBlocks(walk, message.content, `$.messages[${i}].content`);
    if (content !== message.content) (messages ??= request.messages.slice())[i] = { ...message, content };
  });
  const changed = system !== request.system || messages !== null;
  const value = changed ? ({ ...request, system, messages: messages ?? request.messages } as T) : request;
  return { value, detections: walk.detections, blocked: walk.blocked };
}

/**
 * Data-loss prevention on a model's answer before it reaches the client: the rules' `outbound`
 * direction (what comes back, as a tool's result does). Scans text and tool-call arguments.
 */
export function scanModelOutput<B extends ModelBlockLike>(scanner: Scanner, output: ReadonlyArray<B>): ModelScanResult<ReadonlyArray<B>> {
  const walk: Walk = { scanner, direction: 'outbound', detections: [], blocked: null };
  const value = scanBlocks(walk, output, '$.output');
  return { value, detections: walk.detections, blocked: walk.blocked };
}
