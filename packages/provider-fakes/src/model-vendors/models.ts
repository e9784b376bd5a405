/** What the fakes know about a model: its context window, its output cap, whether it reasons. */
export interface FakeModelInfo {
  contextWindow: number;
  maxOutputTokens: number;
  /** Spends hidden reasoning tokens by default (OpenAI o-series and gpt-5, Gemini 2.5 and later). */
  reasons: boolean;
  /** Embedding size, for embedding models. */
  embeddingDimensions?: number;
}

const TABLE: Array<[RegExp, FakeModelInfo]> = [
  [/^text-embedding-3-large/, { contextWindow: 8192, maxOutputTokens: 0, reasons: false, embeddingDimensions: 3072 }],
  [/^text-embedding-(3-small|ada-002)/, { contextWindow: 8192, maxOutputTokens: 0, reasons: false, embeddingDimensions: 1536 }],
  [/^(gemini-embedding|embedding-001)/, { contextWindow: 2048, maxOutputTokens: 0, reasons: false, embeddingDimensions: 3072 }],
  [/^text-embedding-00[45]/, { contextWindow: 2048, maxOutputTokens: 0, reasons: false, embeddingDimensions: 768 }],
  [/embed/, { contextWindow: 8192, maxOutputTokens: 0, reasons: false, embeddingDimensions: 1024 }],
  [/^gpt-4\.1/, { contextWindow: 1_047_576, maxOutputTokens: 32_768, reasons: false }],
  [/^gpt-4o/, { contextWindow: 128_000, maxOutputTokens: 16_384, reasons: false }],
  [/^gpt-5/, { contextWindow: 400_000, maxOutputTokens: 128_000, reasons: true }],
  [/^o\d/, { contextWindow: 200_000, maxOutputTokens: 100_000, reasons: true }],
  [/^gpt-3\.5/, { contextWindow: 16_385, maxOutputTokens: 4_096, reasons: false }],
  [/^claude-(opus-4|4-opus)/, { contextWindow: 200_000, maxOutputTokens: 32_000, reasons: false }],
  [/^claude-(sonnet-4|4-sonnet|haiku-4|3-7-sonnet)/, { contextWindow: 200_000, maxOutputTokens: 64_000, reasons: false }],
  [/^claude-3-5/, { contextWindow: 200_000, maxOutputTokens: 8_192, reasons: false }],
  [/^claude/, { contextWindow: 200_000, maxOutputTokens: 4_096, reasons: false }],
  [/^gemini-(2\.5|3)/, { contextWindow: 1_048_576, maxOutputTokens: 65_536, reasons: true }],
  [/^gemini/, { contextWindow: 1_048_576, maxOutputTokens: 8_192, reasons: false }],
];

const DEFAULT_INFO: FakeModelInfo = { contextWindow: 128_000, maxOutputTokens: 16_384, reasons: false };

/** Looks a model up by name (prefix patterns, so dated snapshots match their family). */
export function fakeModelInfo(model: string): FakeModelInfo {
  for (const [pattern, info] of TABLE) if (pattern.test(model)) return info;
  return DEFAULT_INFO;
}

export const OPENAI_MODELS = ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1', 'gpt-4.1-mini', 'o3-mini', 'o4-mini', 'gpt-5', 'gpt-5-mini', 'text-embedding-3-small', 'text-embedding-3-large', 'text-embedding-ada-002', 'gpt-image-1', 'dall-e-3', 'dall-e-2', 'tts-1', 'tts-1-hd', 'gpt-4o-mini-tts', 'whisper-1', 'gpt-4o-transcribe'];

export const ANTHROPIC_MODELS = [
  'claude-sonnet-4-6',
  'claude-opus-4-6',
  'claude-sonnet-4-5',
  'claude-sonnet-4-5-20250929',
  'claude-sonnet-4-0',
  'claude-sonnet-4-20250514',
  'claude-haiku-4-5',
  'claude-haiku-4-5-20251001',
  'claude-opus-4-1',
  'claude-opus-4-1-20250805',
  'claude-3-5-haiku-latest',
  'claude-3-5-haiku-20241022',
];

export const GEMINI_MODELS = ['gemini-2.0-flash', 'gemini-2.0-flash-lite', 'gemini-2.5-flash', 'gemini-2.5-flash-lite', 'gemini-2.5-pro', 'text-embedding-004', 'gemini-embedding-001', 'gemini-2.5-flash-image', 'gemini-2.5-flash-preview-tts'];

export const OPENAI_COMPATIBLE_MODELS = ['llama-3.3-70b-versatile', 'llama-3.1-8b-instant', 'mistral-large-latest', 'mistral-small-latest', 'meta-llama/Llama-3.3-70B-Instruct-Turbo', 'qwen2.5:7b', 'nomic-embed-text'];
