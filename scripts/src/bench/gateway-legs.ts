/** The request every path of pnpm bench gateway is measured with, and what it must answer. */
const PROMPT = 'Say hello to the benchmark';
/** What the fake answers to PROMPT (its default echo), on every path. */
export const EXPECTED_ANSWER = `You said: ${PROMPT}`;

export interface Leg {
  label: string;
  url: string;
  headers: Record<string, string>;
  model: string;
}

export function chatBody(model: string, stream = false, maxTokens = 32): string {
  return JSON.stringify({ model, messages: [{ role: 'user', content: PROMPT }], max_tokens: maxTokens, ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}) });
}

