import type { FakeFinishReason, FakeUsage } from './types';
import type { StreamFrame } from './server';

/** `data: <json>\n\n`: one SSE frame without an event name (OpenAI chat, Gemini). */
export function dataFrame(value: unknown, tokens = 0, terminal = false): StreamFrame {
  return { text: `data: ${JSON.stringify(value)}\n\n`, tokens, terminal };
}

/** `event: <name>\ndata: <json>\n\n`: one SSE frame with an event name (Anthropic, OpenAI Responses). */
export function eventFrame(event: string, value: unknown, tokens = 0, terminal = false): StreamFrame {
  return { text: `event: ${event}\ndata: ${JSON.stringify(value)}\n\n`, tokens, terminal };
}

/** A short hex id, unique within one fake (vendors' ids are opaque; only their prefixes matter). */
export function hexId(n: number, length = 24): string {
  const seed = (n * 2654435761) >>> 0;
  return (seed.toString(16) + n.toString(16)).padStart(length, '0').slice(-length);
}

/** Go-style durations as OpenAI's `x-ratelimit-reset-*` headers write them: `20ms`, `1.5s`, `6m0s`. */
export function goDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(3))}s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes}m${Number(((ms - minutes * 60_000) / 1000).toFixed(3))}s`;
}

/** The OpenAI `finish_reason` for a canonical one. */
export function openAIFinish(finish: FakeFinishReason): string {
  return finish === 'max_tokens' ? 'length' : finish === 'tool_use' ? 'tool_calls' : finish;
}

/** The `usage` object of an OpenAI chat completion (prompt includes cached, completion includes reasoning). */
export function openAIChatUsage(u: FakeUsage): Record<string, unknown> {
  return {
    prompt_tokens: u.inputTokens,
    completion_tokens: u.outputTokens,
    total_tokens: u.inputTokens + u.outputTokens,
    prompt_tokens_details: { cached_tokens: u.cachedInputTokens, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: u.reasoningTokens, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

/** Whether a data URL names an image type the vendors accept. */
export function imageMediaType(url: string): string | undefined {
  const m = /^data:([^;,]+)[;,]/.exec(url);
  return m?.[1];
}

export const SUPPORTED_IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

export function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The strings of a value that should be a string array (anything else is dropped). */
export function strings(value: unknown): string[] {
  return asArray(value).filter((x): x is string => typeof x === 'string');
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
