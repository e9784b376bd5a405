import { randomUUID } from 'node:crypto';
import {
  callVendor,
  streamVendor,
  VendorError,
  type AnswerOptions,
  type CancelSignal,
  type CanonicalMessage,
  type CanonicalRequest,
  type CanonicalResponse,
  type CanonicalStreamEvent,
  type ContentBlock,
  type NormalizedUsage,
  type OutputBlock,
  type ToolResultBlock,
  type ToolUseBlock,
  type VendorStream,
  type VendorTarget,
  type Warning,
  type WebSearchCallBlock,
} from '@patchbay/model-wire';
import { SearchEngineError, type SearchResult } from '@patchbay/web-search';
import { citationsFor, formatResults, SEARCH_FUNCTION, screenResults, type ScreenOptions } from './search-results';
import type { WebSearchSettings } from './tool-request';

/** What the loop needs to run searches: the engines, their prices, the screening of results. */
export interface SearchRunner {
  settings: WebSearchSettings;
  /** Time spent waiting on the vendor and the engines (ms), so the gateway's own time can be told apart. */
  waitedMs: number;
  screen: ScreenOptions;
  /** Runs one query on the chosen engine; the engine that answered and what one search there costs (micro-USD). */
  search(query: string, signal: CancelSignal | undefined): Promise<{ engine: string; results: SearchResult[]; priceMicros: number }>;
}

/** One search the model asked for, as run. */
interface SearchDone {
  block: WebSearchCallBlock;
  results: SearchResult[];
  text: string;
  failed: boolean;
}

/** Tally of a request's searches: what the usage shows and what they cost. */
class SearchTally {
  requests = 0;
  results = 0;
  costMicros = 0;
  withheld = 0;
  /** Every source given to the model, in order, once per URL (what the answer cites). */
  readonly sources: Array<{ url: string; title: string; snippet: string }> = [];

  usage(usage: NormalizedUsage): NormalizedUsage {
    return { ...usage, serverToolUse: { webSearchRequests: this.requests, webSearchResults: this.results, costMicros: this.costMicros } };
  }

  warnings(): Warning[] {
    return this.withheld > 0
      ? [{ code: 'web_search_results_withheld', message: `${this.withheld} web search result(s) were withheld from the model by the gateway's prompt-injection or data-loss screening.`, detail: { withheld: this.withheld } }]
      : [];
  }
}

function addUsage(a: NormalizedUsage | null, b: NormalizedUsage): NormalizedUsage {
  if (!a) return { ...b };
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
    cacheWriteInputTokens: a.cacheWriteInputTokens + b.cacheWriteInputTokens,
    cacheWrite1hInputTokens: a.cacheWrite1hInputTokens + b.cacheWrite1hInputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
    ...(a.estimated || b.estimated ? { estimated: true } : {}),
  };
}

/** The queries of one svc_web_search call: `queries` (a list) or `query` (one), trimmed, empty ones dropped. */
function queriesOf(input: unknown): string[] {
  const args = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  const list = Array.isArray(args.queries) ? args.queries : typeof args.query === 'string' ? [args.query] : typeof input === 'string' ? [input] : [];
  return list.filter((q): q is string => typeof q === 'string' && q.trim() !== '').map((q) => q.trim().slice(0, 400)).slice(0, 5);
}

function searchId(): string {
  return `ws_${randomUUID().replace(/-/g, '')}`;
}

/** Runs the searches of one model turn's calls, within the request's cap; each call gets one tool result. */
async function runSearches(runner: SearchRunner, tally: SearchTally, calls: ToolUseBlock[], signal: CancelSignal | undefined): Promise<{ done: SearchDone[]; results: ToolResultBlock[] }> {
  const done: SearchDone[] = [];
  const results: ToolResultBlock[] = [];
  for (const call of calls) {
    const queries = queriesOf(call.input);
    const texts: string[] = [];
    let anyOk = false;
    if (queries.length === 0) texts.push('Error: call svc_web_search with {"queries": ["a few keywords"]}.');
    for (const query of queries) {
      if (tally.requests >= runner.settings.maxSearches) {
        // Past the cap: not run, not counted (as Orq and Anthropic's max_uses_exceeded); the model is told to answer.
        const block: WebSearchCallBlock = { type: 'web_search_call', id: searchId(), queries: [query], sources: [], status: 'failed', errorCode: 'max_uses_exceeded' };
        done.push({ block, results: [], text: '', failed: true });
        texts.push(`Search "${query}" was not run: this request's limit of ${runner.settings.maxSearches} searches is reached. Answer with what you have.`);
        continue;
      }
      try {
        const searchStart = performance.now();
        let outcome;
        try {
          outcome = await runner.search(query, signal);
        } finally {
          runner.waitedMs += performance.now() - searchStart;
        }
        const screened = screenResults(outcome.results, runner.screen);
        tally.requests += 1;
        tally.costMicros += outcome.priceMicros;
        tally.results += screened.kept.length;
        tally.withheld += screened.withheld.injection + screened.withheld.dlp;
        for (const r of screened.kept) if (!tally.sources.some((s) => s.url === r.url)) tally.sources.push({ url: r.url, title: r.title, snippet: r.snippet });
        const block: WebSearchCallBlock = { type: 'web_search_call', id: searchId(), queries: [query], sources: screened.kept.map((r) => ({ url: r.url, title: r.title, pageAge: r.publishedAt })), status: 'completed' };
        const text = formatResults(query, screened.kept, screened.withheld.injection + screened.withheld.dlp);
        done.push({ block, results: screened.kept, text, failed: false });
        texts.push(text);
        anyOk = true;
      } catch (err) {
        if (signal?.aborted) throw err;
        const kind = err instanceof SearchEngineError ? err.kind : 'network';
        const code = kind === 'rate_limit' ? 'too_many_requests' : 'unavailable';
        done.push({ block: { type: 'web_search_call', id: searchId(), queries: [query], sources: [], status: 'failed', errorCode: code }, results: [], text: '', failed: true });
        texts.push(`Search "${query}" failed: the search engine is ${kind === 'rate_limit' ? 'rate limited' : 'unavailable'} right now. Answer without it, and say so if it matters.`);
      }
    }
    results.push({ type: 'tool_result', toolUseId: call.id, content: [{ type: 'text', text: texts.join('\n\n') }], isError: !anyOk });
  }
  return { done, results };
}

/** The largest number of model calls one request makes: one per search allowed, plus the answer. */
function maxRounds(runner: SearchRunner): number {
  return runner.settings.maxSearches + 1;
}

/** The model's search calls and its calls of the client's own tools, in one turn's output. */
function splitCalls(output: OutputBlock[]): { search: ToolUseBlock[]; client: ToolUseBlock[] } {
  const search: ToolUseBlock[] = [];
  const client: ToolUseBlock[] = [];
  for (const block of output) if (block.type === 'tool_use') (block.name === SEARCH_FUNCTION ? search : client).push(block);
  return { search, client };
}

/** The turn as history for the next call (what the model said, its search calls), and its results. */
function nextTurns(output: OutputBlock[], results: ToolResultBlock[]): CanonicalMessage[] {
  const assistant = output.filter((b) => b.type !== 'web_search_call') as ContentBlock[];
  return [
    { role: 'assistant', content: assistant },
    { role: 'user', content: results },
  ];
}

/**
 * The non-streamed tool loop: call the model; while it calls svc_web_search (and nothing of the
 * client's), run the queries, give it the results and call again; the answer carries the searches as
 * web_search_call blocks, url_citation annotations on its text, and usage summed over the calls with
 * the searches in server_tool_use.
 */
export async function callWithSearch(target: VendorTarget, request: CanonicalRequest, options: AnswerOptions, runner: SearchRunner, signal: CancelSignal | undefined): Promise<CanonicalResponse> {
  const tally = new SearchTally();
  const output: OutputBlock[] = [];
  let messages = request.messages;
  let usage: NormalizedUsage | null = null;
  for (let round = 0; ; round++) {
    let response: CanonicalResponse;
    const callStart = performance.now();
    try {
      response = await callVendor(target, { ...request, messages }, { ...options, failEmpty: round === 0 ? options.failEmpty : false });
      runner.waitedMs += performance.now() - callStart;
    } catch (err) {
      runner.waitedMs += performance.now() - callStart;
      // A later call failing still bills the calls and searches before it.
      if (err instanceof VendorError && usage) throw withUsage(err, tally.usage(err.usage ? addUsage(usage, err.usage) : usage));
      throw err;
    }
    usage = addUsage(usage, response.usage);
    const { search, client } = splitCalls(response.output);
    const shown = response.output.filter((b) => !(b.type === 'tool_use' && b.name === SEARCH_FUNCTION));
    if (search.length === 0 || client.length > 0 || round + 1 >= maxRounds(runner)) {
      output.push(...shown);
      const cited = citationsFor(output, tally.sources);
      if (cited) (output[cited.index] as { annotations?: unknown }).annotations = cited.annotations;
      const finishReason = response.finishReason === 'tool_use' && client.length === 0 ? 'stop' : response.finishReason;
      return { ...response, output, finishReason, usage: tally.usage(usage), warnings: [...response.warnings, ...tally.warnings()] };
    }
    const ran = await runSearches(runner, tally, search, signal);
    output.push(...shown, ...ran.done.map((d) => d.block));
    messages = [...messages, ...nextTurns(response.output, ran.results)];
  }
}

/**
 * The streamed tool loop. The first call is made here (so a failure before its first token still
 * fails over to the next route); the returned stream forwards each call's text as it comes, holds
 * back the search calls, emits each search as a web_search_call event once run, then the next call's
 * events, and ends with the annotations and one finish carrying the summed usage.
 */
export async function streamWithSearch(target: VendorTarget, request: CanonicalRequest, options: AnswerOptions, runner: SearchRunner, signal: CancelSignal | undefined): Promise<VendorStream> {
  const firstStart = performance.now();
  let first: VendorStream;
  try {
    first = await streamVendor(target, request, options);
  } finally {
    runner.waitedMs += performance.now() - firstStart;
  }
  const tally = new SearchTally();
  async function* events(): AsyncGenerator<CanonicalStreamEvent> {
    let stream: VendorStream = first;
    let messages = request.messages;
    let usage: NormalizedUsage | null = null;
    let offset = 0;
    for (let round = 0; ; round++) {
      const hidden = new Map<number, ToolUseBlock>();
      const turn: OutputBlock[] = [];
      const byIndex = new Map<number, OutputBlock>();
      let finish: Extract<CanonicalStreamEvent, { type: 'finish' }> | null = null;
      let highest = -1;
      for await (const event of stream) {
        if (event.type === 'finish') {
          finish = event;
          continue;
        }
        highest = Math.max(highest, event.index);
        track(event, byIndex, turn);
        if (event.type === 'tool_call_start' && event.name === SEARCH_FUNCTION) {
          hidden.set(event.index, byIndex.get(event.index) as ToolUseBlock);
          continue;
        }
        if (hidden.has(event.index)) continue;
        yield { ...event, index: event.index + offset } as CanonicalStreamEvent;
      }
      if (!finish) throw new VendorError({ kind: 'stream_cut', message: 'The stream ended without a finish.', vendor: target.vendor });
      usage = addUsage(usage, finish.usage);
      for (const block of turn) if (block.type === 'tool_use') block.input = parse(block.inputJson ?? '');
      const { search, client } = splitCalls(turn);
      if (search.length === 0 || client.length > 0 || round + 1 >= maxRounds(runner)) {
        const shown = turn.filter((b) => !(b.type === 'tool_use' && b.name === SEARCH_FUNCTION));
        const cited = citationsFor(shown, tally.sources);
        if (cited) {
          const index = [...byIndex.entries()].find(([, b]) => b === shown[cited.index])![0] + offset;
          for (const annotation of cited.annotations) yield { type: 'annotation', index, annotation };
        }
        const finishReason = finish.finishReason === 'tool_use' && client.length === 0 ? 'stop' : finish.finishReason;
        yield { ...finish, finishReason, usage: tally.usage(usage) };
        return;
      }
      offset += highest + 1;
      const ran = await runSearches(runner, tally, search, signal);
      for (const done of ran.done) yield { type: 'web_search_call', index: offset++, call: done.block };
      messages = [...messages, ...nextTurns(turn, ran.results)];
      try {
        stream = await streamVendor(target, { ...request, messages }, { ...options, failEmpty: false });
      } catch (err) {
        if (err instanceof VendorError) throw withUsage(err, tally.usage(err.usage ? addUsage(usage, err.usage) : usage), true);
        throw err;
      }
    }
  }
  const iterable = events();
  return {
    warnings: first.warnings,
    vendorRequestId: first.vendorRequestId,
    [Symbol.asyncIterator]: () => iterable,
  };
}

/** The same vendor failure, billed for everything the request ran before it (earlier calls and searches). */
function withUsage(err: VendorError, usage: NormalizedUsage, afterFirstToken = err.afterFirstToken): VendorError {
  return new VendorError({
    kind: err.kind,
    message: err.message,
    vendor: err.vendor,
    ...(err.model ? { model: err.model } : {}),
    vendorStatus: err.vendorStatus,
    retryAfterSeconds: err.retryAfterSeconds,
    vendorBody: err.vendorBody,
    vendorCode: err.vendorCode,
    param: err.param,
    usage,
    afterFirstToken,
    cause: err,
  });
}

function parse(json: string): unknown {
  if (json === '') return {};
  try {
    return JSON.parse(json);
  } catch {
    return json;
  }
}

/** Builds a turn's output blocks from its events (what the next call's history needs). */
function track(event: CanonicalStreamEvent, byIndex: Map<number, OutputBlock>, turn: OutputBlock[]): void {
  const get = (make: () => OutputBlock): OutputBlock => {
    const index = (event as { index: number }).index;
    let block = byIndex.get(index);
    if (!block) {
      block = make();
      byIndex.set(index, block);
      turn.push(block);
    }
    return block;
  };
  switch (event.type) {
    case 'text_delta': {
      const block = get(() => ({ type: 'text', text: '' }));
      if (block.type === 'text') block.text += event.text;
      return;
    }
    case 'thinking_delta': {
      const block = get(() => ({ type: 'thinking', thinking: '' }));
      if (block.type === 'thinking') block.thinking += event.thinking;
      return;
    }
    case 'thinking_signature': {
      const block = get(() => ({ type: 'thinking', thinking: '' }));
      if (block.type === 'thinking') block.signature = (block.signature ?? '') + event.signature;
      return;
    }
    case 'redacted_thinking':
      get(() => ({ type: 'redacted_thinking', data: event.data, ...(event.origin ? { origin: event.origin } : {}) }));
      return;
    case 'tool_call_start':
      get(() => ({ type: 'tool_use', id: event.id, name: event.name, input: {}, inputJson: '', ...(event.signature ? { signature: event.signature } : {}) }));
      return;
    case 'tool_call_delta': {
      const block = byIndex.get(event.index);
      if (block?.type === 'tool_use') block.inputJson = (block.inputJson ?? '') + event.argumentsDelta;
      return;
    }
    default:
      return;
  }
}
