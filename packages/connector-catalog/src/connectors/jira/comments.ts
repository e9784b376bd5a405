import { encodePath } from '../../core/provider-http';
import { WRITE, inputSchema, str } from '../../core/schema';
import type { ToolDefinition } from '../../core/types';
import { textToAdf, type AdfNode } from './adf';
import { jiraRequest } from './client';
import { commentSchema, issueKeyParam, toComment } from './issues';

export const addComment: ToolDefinition<{ issue_key: string; body: string }> = {
  name: 'add_comment',
  description: 'Add a comment to a Jira issue. The body is plain text; blank lines separate paragraphs. Everyone who can see the issue can read it.',
  input_schema: inputSchema({ issue_key: issueKeyParam, body: str('Comment text', { minLength: 1, maxLength: 32_000 }) }, ['issue_key', 'body']),
  output_schema: commentSchema,
  annotations: WRITE,
  async execute(ctx, input) {
    const res = await jiraRequest<{ id: string; author?: { accountId: string; displayName?: string }; body?: AdfNode; created: string }>(ctx, {
      method: 'POST',
      path: encodePath('/rest/api/3/issue/{issue_key}/comment', input),
      json: { body: textToAdf(input.body) },
    });
    return toComment(res.data);
  },
};
