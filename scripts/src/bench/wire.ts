import { adapterFor, createStreamRenderer, parseSurfaceRequest, renderResponse, SseParser, type CanonicalResponse, type CanonicalStreamEvent, type VendorTarget } from '@patchbay/model-wire';
import type { Benchmark } from './benchmark';
import { measureSync, type MicroOptions } from './micro';
import { machineDescription, machineLoad, print, progress, table } from './report';

const USAGE = `pnpm bench wire

µs per request of @patchbay/model-wire's hot path, in process (no network, no services), side by side
with a reference that does the least any JSON proxy does with the same bytes (JSON.parse of the
body, JSON.stringify of what is sent on; for streams, splitting the SSE frames and parsing and
re-serialising each one):
- request: parse an OpenAI chat body into the canonical form and translate it into an Anthropic
  request body;
- response: parse an Anthropic answer and render it as an OpenAI chat completion;
- stream: decode a 200-frame Anthropic SSE stream and render it as OpenAI chat chunks.
`;

const target: VendorTarget = { dialect: 'anthropic', vendor: 'anthropic', baseUrl: 'https://api.anthropic.com', apiKey: 'k', vendorModel: 'claude-sonnet-4', model: 'anthropic/claude-sonnet-4' };

function chatBody(messages: number, tools: number): string {
  const history: unknown[] = [{ role: 'system', content: 'You are a careful assistant. Answer briefly and cite the tool results you used.' }];
  for (let i = 0; i < messages; i++) {
    history.push({ role: i % 2 ? 'assistant' : 'user', content: `Message ${i}: ${'a few words about the weather in several cities and what to pack '.repeat(3)}` });
  }
  if (history.length % 2 === 0) history.push({ role: 'user', content: 'And tomorrow?' });
  const toolDefs = Array.from({ length: tools }, (_, i) => ({
    type: 'function',
    function: { name: `tool_${i}`, description: `Tool number ${i} looks things up`, parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } }, required: ['city'] } },
  }));
  return JSON.stringify({ model: 'anthropic/claude-sonnet-4', messages: history, tools: toolDefs.length ? toolDefs : undefined, max_tokens: 512, temperature: 0.3 });
}

function anthropicAnswer(words: number): string {
  return JSON.stringify({
    id: 'msg_01',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-20250514',
    content: [{ type: 'text', text: 'word '.repeat(words) }, { type: 'tool_use', id: 'toolu_01', name: 'tool_1', input: { city: 'Oslo', days: 2 } }],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 1200, cache_creation_input_tokens: 0, cache_read_input_tokens: 800, output_tokens: 240 },
  });
}

function anthropicStream(frames: number): string {
  const ev = (type: string, data: unknown) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
  let out = ev('message_start', { type: 'message_start', message: { id: 'msg_01', type: 'message', role: 'assistant', model: 'claude-sonnet-4', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1200, output_tokens: 1 } } });
  out += ev('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
  for (let i = 0; i < frames; i++) out += ev('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ` token${i}` } });
  out += ev('content_block_stop', { type: 'content_block_stop', index: 0 });
  out += ev('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: frames } });
  return out + ev('message_stop', { type: 'message_stop' });
}

const headers = { get: () => null };

function wireRequest(body: string): unknown {
  const parsed = parseSurfaceRequest('openai-chat', JSON.parse(body));
  return adapterFor('anthropic').buildRequest(target, parsed.request, false).body;
}

function referenceRequest(body: string): unknown {
  return JSON.stringify(JSON.parse(body));
}

function wireResponse(answer: string): unknown {
  const parsed = adapterFor('anthropic').parseAnswer(JSON.parse(answer), target, headers);
  const response: CanonicalResponse = { id: 'resp_1', model: target.model, vendor: 'anthropic', created: 0, warnings: [], ...parsed };
  return JSON.stringify(renderResponse('openai-chat', response, { costUsd: 0.01 }));
}

function referenceResponse(answer: string): unknown {
  return JSON.stringify(JSON.parse(answer));
}

function wireStream(text: string): number {
  const parser = new SseParser();
  const frames: Array<{ event: string | null; data: string }> = [];
  const events: CanonicalStreamEvent[] = [];
  const decoder = adapterFor('anthropic').streamDecoder(target, headers);
  const renderer = createStreamRenderer('openai-chat', { id: 'resp_1', model: target.model, vendor: 'anthropic', created: 0, render: { includeUsage: true } });
  let bytes = renderer.start().length;
  // Vendors send frames a few at a time: feed it in 512-byte pieces, as a socket would.
  for (let at = 0; at < text.length; at += 512) {
    parser.push(text.slice(at, at + 512), frames);
    for (const frame of frames) decoder.frame(frame, events);
    frames.length = 0;
    for (const event of events) bytes += renderer.event(event).length;
    events.length = 0;
  }
  decoder.end(events);
  return bytes + renderer.finish({ costUsd: 0.01 }).length;
}

function referenceStream(text: string): number {
  let bytes = 0;
  let buffer = '';
  for (let at = 0; at < text.length; at += 512) {
    buffer += text.slice(at, at + 512);
    let end: number;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame.slice(frame.indexOf('data: ') + 6);
      bytes += `data: ${JSON.stringify(JSON.parse(data))}\n\n`.length;
    }
  }
  return bytes;
}

async function run(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    print(USAGE);
    return 0;
  }
  const small: MicroOptions = { warmupIterations: 20_000, rounds: 5, iterationsPerRound: 20_000 };
  const medium: MicroOptions = { warmupIterations: 500, rounds: 5, iterationsPerRound: 1_000 };
  const cases: Array<{ name: string; input: string; wire: (s: string) => unknown; reference: (s: string) => unknown; options: MicroOptions }> = [
    { name: 'request: 2 messages, no tools', input: chatBody(1, 0), wire: wireRequest, reference: referenceRequest, options: small },
    { name: 'request: 40 messages, 20 tools', input: chatBody(40, 20), wire: wireRequest, reference: referenceRequest, options: medium },
    { name: 'response: 200 words + tool call', input: anthropicAnswer(200), wire: wireResponse, reference: referenceResponse, options: small },
    { name: 'stream: 200 frames', input: anthropicStream(200), wire: wireStream, reference: referenceStream, options: medium },
  ];
  const rows: string[][] = [];
  for (const c of cases) {
    progress(c.name);
    const wire = measureSync(() => c.wire(c.input), c.options);
    const reference = measureSync(() => c.reference(c.input), c.options);
    rows.push([c.name, String(c.input.length), (wire.nsPerOp / 1000).toFixed(1), (reference.nsPerOp / 1000).toFixed(1), (wire.nsPerOp / reference.nsPerOp).toFixed(2)]);
  }
  print('pnpm bench wire: model-wire parse + translate + render per request, in process');
  print(`machine: ${machineDescription()}; load average ${machineLoad().text}`);
  print('each row: warm-up, then 5 rounds; µs is the median round; reference = JSON.parse + JSON.stringify of the same bytes');
  print();
  for (const line of table(['case', 'bytes', 'wire µs', 'reference µs', 'ratio'], rows)) print(line);
  return 0;
}

export const wireBenchmark: Benchmark = {
  name: 'wire',
  summary: 'µs per request of model-wire (parse, translate, render; stream decode and render) next to a bare JSON proxy',
  run,
};
