import { asArray, asRecord, str, strings } from './common';
import { fakePcm, fakePng } from './media-common';
import type { JsonResult, VendorCall } from './server';

/**
 * Gemini's image output and text to speech on generateContent (facts file §4.5): an image model
 * (`gemini-2.5-flash-image`) answers `responseModalities: ["TEXT","IMAGE"]` with `inlineData` PNG
 * parts; a TTS model (`*-tts`) takes `responseModalities: ["AUDIO"]` and a `speechConfig` voice and
 * answers raw 16-bit PCM at 24 kHz, mono, base64 in `inlineData` (`audio/L16;codec=pcm;rate=24000`).
 */

function geminiError(code: number, status: string, message: string): JsonResult {
  return { type: 'json', status: code, body: { error: { code, message, status } } };
}

/** Gemini's prebuilt voices (a subset; the gateway maps OpenAI-style names onto them). */
export const GEMINI_VOICES = ['Zephyr', 'Puck', 'Charon', 'Kore', 'Fenrir', 'Leda', 'Orus', 'Aoede', 'Callirrhoe', 'Autonoe', 'Enceladus', 'Iapetus', 'Umbriel', 'Algieba', 'Despina', 'Erinome', 'Algenib', 'Rasalgethi', 'Laomedeia', 'Achernar', 'Alnilam', 'Schedar', 'Gacrux', 'Pulcherrima', 'Achird', 'Zubenelgenubi', 'Vindemiatrix', 'Sadachbia', 'Sadaltager', 'Sulafat'];

function promptText(body: Record<string, unknown>): string {
  return asArray(body.contents)
    .flatMap((c) => asArray(asRecord(c).parts))
    .map((p) => str(asRecord(p).text) ?? '')
    .join(' ')
    .trim();
}

const tokensOf = (text: string) => Math.max(1, Math.ceil(text.length / 4));

/** The media form of generateContent for an image or TTS model, or undefined for any other model. */
export function routeGeminiMedia(model: string, method: string, body: Record<string, unknown>, seed: () => number): VendorCall | JsonResult | undefined {
  const image = /-image(-preview)?$/.test(model);
  const tts = /-tts$/.test(model);
  if (!image && !tts) return undefined;
  if (method !== 'generateContent') return geminiError(400, 'INVALID_ARGUMENT', `${method} is not supported for ${model}; call generateContent.`);
  if (!Array.isArray(body.contents) || body.contents.length === 0) return geminiError(400, 'INVALID_ARGUMENT', '* GenerateContentRequest.contents: contents is not specified');
  const config = asRecord(body.generationConfig);
  const modalities = strings(config.responseModalities).map((m) => m.toUpperCase());
  const text = promptText(body);
  if (tts) {
    if (modalities.length !== 1 || modalities[0] !== 'AUDIO') {
      return geminiError(400, 'INVALID_ARGUMENT', 'The requested combination of response modalities (TEXT) is not supported by the model. models/' + model + ' accepts the following combination of response modalities:\n* AUDIO\n');
    }
    const voice = str(asRecord(asRecord(asRecord(config.speechConfig).voiceConfig).prebuiltVoiceConfig).voiceName) ?? 'Kore';
    if (!GEMINI_VOICES.includes(voice)) return geminiError(400, 'INVALID_ARGUMENT', `Voice name ${voice} is not supported. Allowed voice names are: ${GEMINI_VOICES.map((v) => v.toLowerCase()).join(', ')}`);
    if (text === '') return geminiError(400, 'INVALID_ARGUMENT', 'Model tried to generate text, but it should only be used for TTS.');
    return {
      operation: 'generateContent',
      model,
      stream: false,
      inputTokens: tokensOf(text),
      respond: () => {
        const pcm = fakePcm(Math.min(30, text.length / 15));
        const outputTokens = Math.ceil(pcm.length / 2 / 24_000 * 25);
        return {
          type: 'json',
          body: {
            candidates: [{ content: { role: 'model', parts: [{ inlineData: { mimeType: 'audio/L16;codec=pcm;rate=24000', data: pcm.toString('base64') } }] }, finishReason: 'STOP', index: 0 }],
            usageMetadata: { promptTokenCount: tokensOf(text), candidatesTokenCount: outputTokens, totalTokenCount: tokensOf(text) + outputTokens, promptTokensDetails: [{ modality: 'TEXT', tokenCount: tokensOf(text) }], candidatesTokensDetails: [{ modality: 'AUDIO', tokenCount: outputTokens }] },
            modelVersion: model,
            responseId: `fake-${seed()}`,
          },
        };
      },
    };
  }
  if (modalities.length > 0 && !modalities.includes('IMAGE')) {
    return geminiError(400, 'INVALID_ARGUMENT', `Model ${model} only supports text and image output together: set generationConfig.responseModalities to ["TEXT","IMAGE"].`);
  }
  const n = seed();
  return {
    operation: 'generateContent',
    model,
    stream: false,
    inputTokens: tokensOf(text),
    respond: () => ({
      type: 'json',
      body: {
        candidates: [
          {
            content: { role: 'model', parts: [{ text: `Here is an image of ${text.slice(0, 60)}.` }, { inlineData: { mimeType: 'image/png', data: fakePng(n).toString('base64') } }] },
            finishReason: 'STOP',
            index: 0,
          },
        ],
        usageMetadata: { promptTokenCount: tokensOf(text), candidatesTokenCount: 1300, totalTokenCount: tokensOf(text) + 1300, candidatesTokensDetails: [{ modality: 'TEXT', tokenCount: 10 }, { modality: 'IMAGE', tokenCount: 1290 }] },
        modelVersion: model,
        responseId: `fake-${n}`,
      },
    }),
  };
}
