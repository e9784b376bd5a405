import type { ActionClass } from './lexicon';
import type { FieldName } from './tool-index';

/** What made a tool match, gathered by the index for the hits it returns. */
export interface HitExplanation {
  /** Intent words that matched, strongest first. */
  matches: Array<{
    intentWord: string;
    /** The tool's word when it differs from the intent's (a synonym: 'meeting' as 'event'). */
    toolWord: string | null;
    fields: FieldName[];
    contribution: number;
    isVerb: boolean;
  }>;
  intentAction: { action: ActionClass; word: string } | null;
  toolAction: ActionClass | null;
  /** The connector's name when the intent names it. */
  connectorNamed: string | null;
  /** First sentence of the tool's description. */
  toolLead: string;
}

const MAX_MATCHES_SHOWN = 4;
/** Where a word matched, most telling first; at most two places are named. */
const PLACES_IN_ORDER = ['tool name', 'connector', 'description', 'parameters'];
const MAX_PLACES_SHOWN = 2;
const MAX_LEAD_CHARS = 200;

const FIELD_LABELS: Record<FieldName, string> = {
  name: 'tool name',
  head: 'tool name',
  connector: 'connector',
  lead: 'description',
  rest: 'description',
  params: 'parameters',
};

const ASKS_TO: Record<ActionClass, string> = { read: 'read', create: 'create', change: 'change', delete: 'delete', execute: 'run something' };
const TOOL_DOES: Record<ActionClass, string> = { read: 'reads', create: 'creates', change: 'changes', delete: 'deletes', execute: 'runs requests' };

/**
 * One readable paragraph: which words matched where, whether the action fits, and what the tool
 * does. Example: "Matches 'email' (as 'gmail' in the connector) and 'send' (in the tool name).
 * 'send' asks to create, as this tool does. The tool: Send a plain-text email..."
 */
export function explainHit(e: HitExplanation): string {
  const sentences: string[] = [];
  const shown = e.matches.slice(0, MAX_MATCHES_SHOWN).map((m) => {
    const as = m.toolWord ? ` as '${m.toolWord}'` : '';
    const labels = new Set(m.fields.map((f) => FIELD_LABELS[f]));
    const where = PLACES_IN_ORDER.filter((place) => labels.has(place)).slice(0, MAX_PLACES_SHOWN);
    return `'${m.intentWord}'${as} (in the ${joinWords(where)})`;
  });
  if (shown.length > 0) {
    const more = e.matches.length - shown.length;
    sentences.push(`Matches ${joinWords(shown)}${more > 0 ? ` and ${more} more word${more === 1 ? '' : 's'}` : ''}.`);
  }
  if (e.intentAction && e.toolAction) {
    const { action, word } = e.intentAction;
    if (action === e.toolAction) sentences.push(`'${word}' asks to ${ASKS_TO[action]}, as this tool does.`);
    else if (action === 'execute' && e.toolAction === 'read') sentences.push(`'${word}' asks to run something; this tool runs reads.`);
    else if (e.toolAction === 'execute') sentences.push(`'${word}' asks to ${ASKS_TO[action]}; this tool sends any request, so it can.`);
    else sentences.push(`Note: '${word}' asks to ${ASKS_TO[action]}, but this tool ${TOOL_DOES[e.toolAction]}.`);
  }
  if (e.connectorNamed) sentences.push(`The intent names ${e.connectorNamed}.`);
  if (e.toolLead) sentences.push(`The tool: ${truncate(e.toolLead, MAX_LEAD_CHARS)}`);
  return sentences.join(' ');
}

function joinWords(items: string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}
