/**
 * What `pnpm bench mcp` checks in the answers it gets, before and while it loads the paths: a broken
 * path (a 401, a JSON-RPC error, an `isError` result, an empty answer) must fail the run, not give it
 * good-looking figures. The load generators only count statuses; a sampler reads bodies beside them.
 */

/** A problem with a response, in words, or null when it is what the benchmark expects. */
export type ResponseCheck = (status: number, body: string) => string | null;

/** The parts of an MCP CallToolResult the checks read. */
export interface ToolResultLike {
  content?: unknown;
  structuredContent?: unknown;
  isError?: boolean;
}

const excerpt = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}...` : text);

/** A JSON-RPC tools/call request, as a bare POST sends it (no initialize first). */
export function toolCallBody(name: string, args: Record<string, unknown>, id = 1): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
}

/** The JSON of a response body; for a Streamable HTTP answer sent as an SSE stream, the last `data:` message. */
export function parseMcpBody(body: string): unknown {
  const trimmed = body.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) return JSON.parse(body);
  // An SSE answer: the last event with data is the response. Events without data, or with empty data
  // (a priming event: an id and an empty data line), carry no message; comments start with ':'.
  let last: string | undefined;
  for (const event of trimmed.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(line[5] === ' ' ? 6 : 5))
      .join('\n');
    if (data.trim() !== '') last = data;
  }
  if (last === undefined) throw new Error('an SSE stream without data');
  return JSON.parse(last);
}

function textOf(result: ToolResultLike): string {
  const items = Array.isArray(result.content) ? (result.content as Array<{ type?: unknown; text?: unknown }>) : [];
  return items.map((item) => (item.type === 'text' && typeof item.text === 'string' ? item.text : '')).join(' ');
}

/** A 200 with a JSON body that `expectJson` accepts (a provider's own API). */
export function jsonCheck(expectJson: (value: unknown) => string | null): ResponseCheck {
  return (status, body) => {
    if (status !== 200) return `status ${status}, expected 200: ${excerpt(body)}`;
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return `the body is not JSON: ${excerpt(body)}`;
    }
    return expectJson(value);
  };
}

/** A 200 carrying a JSON-RPC result (no error) that is not `isError` and that `expectResult` accepts. */
export function toolCallCheck(expectResult: (result: ToolResultLike) => string | null): ResponseCheck {
  return (status, body) => {
    if (status !== 200) return `status ${status}, expected 200: ${excerpt(body)}`;
    let message: unknown;
    try {
      message = parseMcpBody(body);
    } catch {
      return `the body is not a JSON-RPC message: ${excerpt(body)}`;
    }
    const { error, result } = (message ?? {}) as { error?: { code?: unknown; message?: unknown }; result?: unknown };
    if (error !== undefined) return `JSON-RPC error ${String(error?.code)}: ${String(error?.message)}`;
    if (typeof result !== 'object' || result === null) return `no result in ${excerpt(body)}`;
    const toolResult = result as ToolResultLike;
    if (toolResult.isError === true) return `the tool call failed (isError): ${excerpt(textOf(toolResult))}`;
    return expectResult(toolResult);
  };
}

/** Whether `value` holds every field of `expected` with the same value (nested objects compared the same way). */
export function hasFields(value: unknown, expected: Record<string, unknown>): boolean {
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(expected).every(([key, want]) => {
    const got = (value as Record<string, unknown>)[key];
    return typeof want === 'object' && want !== null ? hasFields(got, want as Record<string, unknown>) : got === want;
  });
}

/** Checks that a value (a provider's JSON, a result's structuredContent) has the given fields. */
export function expectFields(what: string, expected: Record<string, unknown>): (value: unknown) => string | null {
  return (value) => (hasFields(value, expected) ? null : `${what} is not ${JSON.stringify(expected)}: ${excerpt(JSON.stringify(value) ?? 'undefined')}`);
}

export interface SampledRequest {
  label: string;
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  check: ResponseCheck;
}

export interface SampleTally {
  label: string;
  checked: number;
  failed: number;
  /** The first problem seen, to show what broke. */
  firstProblem: string | null;
}

/** Sends the request once and checks the answer: the problem, or null. */
export async function checkOnce(request: SampledRequest): Promise<string | null> {
  try {
    const res = await fetch(request.url, { method: request.method ?? 'GET', headers: request.headers, body: request.body, signal: AbortSignal.timeout(10_000) });
    return request.check(res.status, await res.text());
  } catch (err) {
    return `the request failed: ${(err as Error).message}`;
  }
}

/**
 * Checks one request at a time, round robin over the requests, a pause between each, for as long as
 * it runs: the load runs beside it, so what it reads is what the paths answer under load. A few
 * requests a second, so it barely adds to the load it checks.
 */
export class ResponseSampler {
  private readonly tallies: SampleTally[];
  private running: Promise<void> | null = null;
  private stopping = false;
  private wake: (() => void) | null = null;

  constructor(
    private readonly requests: SampledRequest[],
    private readonly pauseMs: number,
  ) {
    if (requests.length === 0) throw new Error('nothing to sample');
    this.tallies = requests.map((r) => ({ label: r.label, checked: 0, failed: 0, firstProblem: null }));
  }

  start(): void {
    this.running ??= this.loop();
  }

  private async loop(): Promise<void> {
    for (let i = 0; !this.stopping; i = (i + 1) % this.requests.length) {
      const problem = await checkOnce(this.requests[i]!);
      const tally = this.tallies[i]!;
      tally.checked += 1;
      if (problem !== null) {
        tally.failed += 1;
        tally.firstProblem ??= problem;
      }
      if (this.stopping) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.pauseMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  /** Stops after the request in flight, and returns what was checked. */
  async stop(): Promise<SampleTally[]> {
    this.stopping = true;
    this.wake?.();
    await this.running;
    return this.tallies.map((t) => ({ ...t }));
  }
}
