import { WireError } from '../errors';
import type { CanonicalMessage, ContentBlock, TextBlock } from '../types';

/**
 * Builds the canonical turn list: consecutive blocks of the same role join one turn (OpenAI's
 * several `tool` messages become one user turn of tool results), system text goes to `system`.
 */
export class TurnBuilder {
  readonly messages: CanonicalMessage[] = [];
  readonly system: TextBlock[] = [];

  add(role: 'user' | 'assistant', blocks: ContentBlock[]): void {
    if (blocks.length === 0) return;
    const last = this.messages[this.messages.length - 1];
    if (last && last.role === role) {
      for (const block of blocks) last.content.push(block);
    } else {
      this.messages.push({ role, content: blocks });
    }
  }

  addSystem(blocks: TextBlock[]): void {
    for (const block of blocks) this.system.push(block);
  }
}

/**
 * The spec's `invalid_tool_messages`: every tool result answers a tool call made earlier, and every
 * tool call of an assistant turn is answered in the user turn right after it.
 */
export function checkToolSequence(messages: CanonicalMessage[], param: string): void {
  const known = new Set<string>();
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === 'assistant') {
      const calls: string[] = [];
      for (const block of message.content) {
        if (block.type === 'tool_use') {
          if (known.has(block.id)) throw WireError.invalid('invalid_tool_messages', `${param}: the tool call id "${block.id}" is used twice.`, param);
          known.add(block.id);
          calls.push(block.id);
        }
      }
      if (calls.length === 0) continue;
      const next = messages[i + 1];
      const answered = new Set<string>();
      if (next) for (const block of next.content) if (block.type === 'tool_result') answered.add(block.toolUseId);
      const missing = calls.filter((id) => !answered.has(id));
      if (missing.length > 0) {
        throw WireError.invalid(
          'invalid_tool_messages',
          `${param}: the tool call${missing.length > 1 ? 's' : ''} ${missing.map((id) => `"${id}"`).join(', ')} must be answered by a tool result right after the assistant turn that made ${missing.length > 1 ? 'them' : 'it'}.`,
          param,
        );
      }
    } else {
      for (const block of message.content) {
        if (block.type === 'tool_result' && !known.has(block.toolUseId)) {
          throw WireError.invalid('invalid_tool_messages', `${param}: the tool result for "${block.toolUseId}" answers no earlier tool call.`, param);
        }
      }
    }
  }
}

/** Tool results first in a user turn (Anthropic requires it; the others do not mind). */
export function toolResultsFirst(messages: CanonicalMessage[]): void {
  for (const message of messages) {
    if (message.role !== 'user' || message.content.length < 2) continue;
    let seenOther = false;
    let needsSort = false;
    for (const block of message.content) {
      if (block.type === 'tool_result') {
        if (seenOther) needsSort = true;
      } else seenOther = true;
    }
    if (needsSort) {
      message.content = [...message.content.filter((b) => b.type === 'tool_result'), ...message.content.filter((b) => b.type !== 'tool_result')];
    }
  }
}
