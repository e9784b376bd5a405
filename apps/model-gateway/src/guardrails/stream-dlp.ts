import type { CanonicalStreamEvent, NormalizedUsage } from '@patchbay/model-wire';
import { StreamTextScreen, type BlockedBy, type Scanner } from '@patchbay/security-scanner';

/** A streamed answer stopped by a DLP block rule, with what the vendor had produced (it is billed: it ran). */
export class StreamDlpBlock extends Error {
  constructor(
    readonly blocked: BlockedBy,
    readonly outputChars: number,
  ) {
    super(`The model's answer was blocked by the data-loss prevention rule "${blocked.rule_name}" (${blocked.kind}).`);
  }

  /** The usage to bill: the input estimate plus the output received, as model-wire estimates a cut stream. */
  usage(inputTokens: number): NormalizedUsage {
    return { inputTokens, cachedInputTokens: 0, cacheWriteInputTokens: 0, cacheWrite1hInputTokens: 0, outputTokens: Math.ceil(this.outputChars / 4), reasoningTokens: 0, estimated: true };
  }
}

interface Channel {
  screen: StreamTextScreen;
  index: number;
  kind: 'text' | 'arguments';
}

/**
 * DLP on a streamed answer as it flows (the outbound rules, as on a non-streamed answer): the text and
 * tool-call arguments of each content block go through a StreamTextScreen, which holds back the last
 * `holdBack` characters so a secret split across chunks is scanned whole before any of it is sent;
 * redactions are applied to what is released. Any other event (a new block, thinking, the finish)
 * first flushes what is held, so blocks stay in order and the finish follows all the text. A block
 * rule ends the iteration with a StreamDlpBlock: the caller ends the stream with the surface's error
 * frame, never a clean finish. Thinking passes untouched, as on non-streamed answers (signed thinking
 * must go back to the vendor unchanged).
 */
export async function* screenStream(events: AsyncIterable<CanonicalStreamEvent>, scanner: Scanner, holdBack: number): AsyncGenerator<CanonicalStreamEvent> {
  const channels = new Map<string, Channel>();
  let outputChars = 0;
  const out = (channel: Channel, text: string): CanonicalStreamEvent =>
    channel.kind === 'text' ? { type: 'text_delta', index: channel.index, text } : { type: 'tool_call_delta', index: channel.index, argumentsDelta: text };
  function* flushAll(except: string | null): Generator<CanonicalStreamEvent> {
    for (const [key, channel] of channels) {
      if (key === except || channel.screen.pending === 0) continue;
      const step = channel.screen.flush();
      if (step.blocked) throw new StreamDlpBlock(step.blocked, outputChars);
      if (step.release) yield out(channel, step.release);
    }
  }

  for await (const event of events) {
    let piece: { key: string; index: number; kind: Channel['kind']; delta: string } | null = null;
    if (event.type === 'text_delta') piece = { key: `t${event.index}`, index: event.index, kind: 'text', delta: event.text };
    else if (event.type === 'tool_call_delta') piece = { key: `a${event.index}`, index: event.index, kind: 'arguments', delta: event.argumentsDelta };
    else if (event.type === 'thinking_delta') outputChars += event.thinking.length;
    else if (event.type === 'tool_call_start') outputChars += event.name.length;
    if (piece === null) {
      yield* flushAll(null);
      yield event;
      continue;
    }
    outputChars += piece.delta.length;
    let channel = channels.get(piece.key);
    if (!channel) {
      channel = { screen: new StreamTextScreen(scanner, holdBack), index: piece.index, kind: piece.kind };
      channels.set(piece.key, channel);
    }
    yield* flushAll(piece.key);
    const step = channel.screen.push(piece.delta);
    if (step.blocked) throw new StreamDlpBlock(step.blocked, outputChars);
    if (step.release) yield out(channel, step.release);
  }
  yield* flushAll(null);
}
