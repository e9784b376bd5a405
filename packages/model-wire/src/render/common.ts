import type { CanonicalStreamEvent, GatewayErrorLike, NormalizedUsage, OutputBlock, RenderExtras, Warning } from '../types';

/** Warnings as the wire carries them: null when there are none (never `[]`). */
export function warningsOrNull(...lists: Array<Warning[] | undefined>): Warning[] | null {
  let all: Warning[] | null = null;
  for (const list of lists) if (list && list.length > 0) all = all ? [...all, ...list] : [...list];
  return all;
}

/** The id without its `resp_` prefix, for the other surfaces' id styles (chatcmpl-…, msg_…). */
export function idBody(id: string): string {
  return id.startsWith('resp_') ? id.slice(5) : id;
}

/** Builds the output blocks of a stream as its events arrive (native snapshots, response from a stream). */
export class OutputAccumulator {
  readonly blocks: OutputBlock[] = [];
  private readonly byIndex = new Map<number, OutputBlock>();

  add(event: CanonicalStreamEvent): void {
    switch (event.type) {
      case 'text_delta': {
        const block = this.block(event.index, () => ({ type: 'text', text: '' }));
        if (block.type === 'text') block.text += event.text;
        return;
      }
      case 'thinking_delta': {
        const block = this.block(event.index, () => ({ type: 'thinking', thinking: '' }));
        if (block.type === 'thinking') block.thinking += event.thinking;
        return;
      }
      case 'thinking_signature': {
        const block = this.block(event.index, () => ({ type: 'thinking', thinking: '' }));
        if (block.type === 'thinking') block.signature = (block.signature ?? '') + event.signature;
        return;
      }
      case 'redacted_thinking':
        this.block(event.index, () => ({ type: 'redacted_thinking', data: event.data, ...(event.origin ? { origin: event.origin } : {}) }));
        return;
      case 'tool_call_start':
        this.block(event.index, () => ({ type: 'tool_use', id: event.id, name: event.name, input: {}, inputJson: '', ...(event.signature ? { signature: event.signature } : {}) }));
        return;
      case 'tool_call_delta': {
        const block = this.byIndex.get(event.index);
        if (block?.type === 'tool_use') block.inputJson = (block.inputJson ?? '') + event.argumentsDelta;
        return;
      }
      case 'web_search_call':
        this.block(event.index, () => ({ ...event.call }));
        return;
      case 'annotation': {
        const block = this.byIndex.get(event.index);
        if (block?.type === 'text') block.annotations = [...(block.annotations ?? []), event.annotation];
        return;
      }
      case 'finish':
        for (const block of this.blocks) {
          if (block.type === 'tool_use') block.input = parseOr(block.inputJson || '{}');
        }
        return;
    }
  }

  private block(index: number, make: () => OutputBlock): OutputBlock {
    let block = this.byIndex.get(index);
    if (!block) {
      block = make();
      this.byIndex.set(index, block);
      this.blocks.push(block);
    }
    return block;
  }
}

function parseOr(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return json;
  }
}

/** The spec's error envelope fields of any gateway error. */
export function envelope(error: GatewayErrorLike): { type: string; message: string; code: string | null; param: string | null; source: string | null; provider: string | null } {
  return {
    type: error.type,
    message: error.message,
    code: error.code ?? null,
    param: error.param ?? null,
    source: error.source ?? null,
    provider: error.provider ?? null,
  };
}

/** `server_tool_use` as Anthropic and OpenRouter report it, when the gateway ran server tools. */
export function serverToolUseBody(usage: NormalizedUsage): Record<string, unknown> {
  const tools = usage.serverToolUse;
  return tools ? { server_tool_use: { web_search_requests: tools.webSearchRequests, web_search_results: tools.webSearchResults } } : {};
}

/** Usage counts for the wire, cost included when the app gives one. */
export function costOf(extras: RenderExtras | undefined): number {
  return extras?.costUsd ?? 0;
}
