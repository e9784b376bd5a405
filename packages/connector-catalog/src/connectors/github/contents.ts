import { encodePath } from '../../core/provider-http';
import { READ_ONLY, inputSchema, int, objectSchema, str } from '../../core/schema';
import { ToolError } from '../../core/tool-error';
import type { ToolDefinition } from '../../core/types';
import { githubRequest } from './client';
import { repoParams } from './params';

type EntryType = 'file' | 'dir' | 'symlink' | 'submodule';

interface GithubContentEntry {
  type: EntryType;
  name: string;
  path: string;
  sha: string;
  size: number;
  html_url: string | null;
}

interface GithubContentFile extends GithubContentEntry {
  encoding?: string;
  content?: string;
  target?: string;
  submodule_git_url?: string;
}

const entrySchema = objectSchema(
  { name: str('File or directory name'), path: str('Path in the repository'), type: str('file, dir, symlink or submodule'), size: int('Bytes (0 for directories)'), sha: str('Git object SHA') },
  ['name', 'path', 'type'],
);

const outputSchema = objectSchema(
  {
    type: str('file, dir, symlink or submodule', { enum: ['file', 'dir', 'symlink', 'submodule'] }),
    path: str('Path in the repository ("" for the root)'),
    name: { type: ['string', 'null'] },
    sha: { type: ['string', 'null'] },
    size: { type: ['integer', 'null'] },
    url: { type: ['string', 'null'], description: 'Web URL' },
    content: { type: ['string', 'null'], description: 'The file as UTF-8 text; null for directories and for files that are not text' },
    content_omitted: { type: ['string', 'null'], enum: ['binary', 'too_large', null], description: 'Why a file\'s content is null' },
    target: { type: ['string', 'null'], description: 'Where a symlink points' },
    entries: { type: ['array', 'null'], items: entrySchema, description: 'A directory\'s entries; null for files' },
  },
  ['type', 'path', 'content', 'entries'],
);

/** Decodes GitHub's base64 (wrapped at 60 columns) and keeps it only when it is UTF-8 text. */
function decodeText(base64: string): { content: string | null; content_omitted: 'binary' | null } {
  const bytes = Buffer.from(base64.replace(/\s+/g, ''), 'base64');
  if (bytes.includes(0)) return { content: null, content_omitted: 'binary' };
  try {
    return { content: new TextDecoder('utf-8', { fatal: true }).decode(bytes), content_omitted: null };
  } catch {
    return { content: null, content_omitted: 'binary' };
  }
}

/** Each segment encoded on its own: GitHub wants the slashes of a nested path as they are. */
function encodeRepoPath(path: string): string {
  return path
    .split('/')
    .filter((segment) => segment !== '')
    .map(encodeURIComponent)
    .join('/');
}

export const getFileContents: ToolDefinition<{ owner: string; repo: string; path?: string; ref?: string }> = {
  name: 'get_file_contents',
  description:
    'Read a file of a GitHub repository as text, or list a directory\'s entries (the root when path is empty). Optionally at a branch, tag or commit SHA (ref); default branch otherwise. Binary files come back without content; files over 1 MB are refused by GitHub.',
  input_schema: inputSchema(
    {
      ...repoParams,
      path: str('File or directory path in the repository, e.g. "src/index.ts"; empty for the root', { default: '' }),
      ref: str('Branch, tag or commit SHA (default: the repository\'s default branch)', { minLength: 1 }),
    },
    ['owner', 'repo'],
  ),
  output_schema: outputSchema,
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const path = encodeRepoPath(input.path ?? '');
    const res = await githubRequest<GithubContentFile | GithubContentEntry[]>(ctx, {
      path: `${encodePath('/repos/{owner}/{repo}/contents', input)}${path ? `/${path}` : ''}`,
      query: { ref: input.ref },
    });
    const data = res.data;
    if (Array.isArray(data)) {
      return {
        type: 'dir' as const,
        path: (input.path ?? '').replace(/^\/+|\/+$/g, ''),
        name: null,
        sha: null,
        size: null,
        url: null,
        content: null,
        content_omitted: null,
        target: null,
        entries: data.map((e) => ({ name: e.name, path: e.path, type: e.type, size: e.size, sha: e.sha })),
      };
    }
    if (typeof data !== 'object' || data === null || typeof data.type !== 'string') throw new ToolError('provider_error', 'GitHub answered the contents request with an unexpected body; retry later.');
    const common = { type: data.type, path: data.path, name: data.name, sha: data.sha, size: data.size, url: data.html_url, target: data.target ?? null, entries: null };
    if (data.type !== 'file') return { ...common, content: null, content_omitted: null };
    // Files of 1 to 100 MB come without content (encoding "none").
    if (data.encoding !== 'base64' || data.content === undefined) return { ...common, content: null, content_omitted: 'too_large' as const };
    return { ...common, ...decodeText(data.content) };
  },
};
