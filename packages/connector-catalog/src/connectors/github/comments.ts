import { encodePath } from '../../core/provider-http';
import { WRITE, inputSchema, int, objectSchema, str } from '../../core/schema';
import type { ToolDefinition } from '../../core/types';
import { githubRequest } from './client';
import { repoParams } from './params';

interface GithubComment {
  id: number;
  body: string;
  html_url: string;
  user: { login: string } | null;
  created_at: string;
  updated_at: string;
}

const commentSchema = objectSchema(
  {
    id: int('Comment id'),
    body: str('Comment text (Markdown)'),
    url: str('Web URL of the comment'),
    author: { type: ['string', 'null'] },
    created_at: str('ISO 8601'),
    updated_at: str('ISO 8601'),
  },
  ['id', 'body', 'url'],
);

function toComment(comment: GithubComment) {
  return { id: comment.id, body: comment.body, url: comment.html_url, author: comment.user?.login ?? null, created_at: comment.created_at, updated_at: comment.updated_at };
}

export const addIssueComment: ToolDefinition<{ owner: string; repo: string; issue_number: number; body: string }> = {
  name: 'add_issue_comment',
  description: 'Add a comment to a GitHub issue or pull request (its conversation, not a review comment on a line of code).',
  input_schema: inputSchema(
    {
      ...repoParams,
      issue_number: int('Issue or pull request number', { minimum: 1 }),
      body: str('Comment text (Markdown)', { minLength: 1, maxLength: 65536 }),
    },
    ['owner', 'repo', 'issue_number', 'body'],
  ),
  output_schema: commentSchema,
  annotations: WRITE,
  async execute(ctx, input) {
    const res = await githubRequest<GithubComment>(ctx, {
      method: 'POST',
      path: encodePath('/repos/{owner}/{repo}/issues/{issue_number}/comments', input),
      json: { body: input.body },
    });
    return toComment(res.data);
  },
};
