import { encodePath } from '../../core/provider-http';
import { WRITE, arr, inputSchema, objectSchema, str } from '../../core/schema';
import { ToolError } from '../../core/tool-error';
import type { ToolDefinition } from '../../core/types';
import { textToAdf } from './adf';
import { jiraRequest } from './client';
import { issueKeyParam } from './issues';

interface JiraTransition {
  id: string;
  name: string;
  to?: { name: string; statusCategory?: { key: string } };
}

/** Transition ids and names differ per workflow, so a model may name the transition or the status it wants. */
function pick(transitions: JiraTransition[], wanted: string): JiraTransition | undefined {
  const w = wanted.trim().toLowerCase();
  return (
    transitions.find((t) => t.id === wanted.trim()) ??
    transitions.find((t) => t.name.toLowerCase() === w) ??
    transitions.find((t) => t.to?.name.toLowerCase() === w)
  );
}

export const transitionIssue: ToolDefinition<{ issue_key: string; transition: string; comment?: string }> = {
  name: 'transition_issue',
  description:
    'Move a Jira issue through its workflow (e.g. to In Progress or Done). `transition` is the transition\'s name or ID, or the name of the target status; if nothing matches, the error lists the transitions available from the current status. Optionally adds a comment.',
  input_schema: inputSchema(
    {
      issue_key: issueKeyParam,
      transition: str('Transition name or ID ("Start Progress", "31") or target status ("Done")', { minLength: 1 }),
      comment: str('Comment to add with the transition', { minLength: 1 }),
    },
    ['issue_key', 'transition'],
  ),
  output_schema: objectSchema(
    {
      key: str('Issue key'),
      transition: objectSchema({ id: str('Transition ID'), name: str('Transition name') }, ['id', 'name']),
      status: { type: ['string', 'null'], description: 'The status the issue moved to' },
      available: arr(str('Transition'), 'Transitions that were available'),
    },
    ['key', 'transition', 'status'],
  ),
  annotations: WRITE,
  async execute(ctx, input) {
    const path = encodePath('/rest/api/3/issue/{issue_key}/transitions', input);
    const listed = await jiraRequest<{ transitions?: JiraTransition[] }>(ctx, { path });
    const transitions = listed.data.transitions ?? [];
    const describe = (t: JiraTransition) => `${t.name} (id ${t.id}${t.to ? `, to ${t.to.name}` : ''})`;
    const chosen = pick(transitions, input.transition);
    if (!chosen) {
      const options = transitions.length > 0 ? transitions.map(describe).join('; ') : 'none (the user may lack the Transition Issues permission)';
      throw new ToolError('invalid_input', `No transition "${input.transition}" is available for ${input.issue_key}. Available: ${options}.`);
    }
    const body: Record<string, unknown> = { transition: { id: chosen.id } };
    if (input.comment) body.update = { comment: [{ add: { body: textToAdf(input.comment) } }] };
    await jiraRequest(ctx, { method: 'POST', path, json: body });
    return { key: input.issue_key, transition: { id: chosen.id, name: chosen.name }, status: chosen.to?.name ?? null, available: transitions.map(describe) };
  },
};
