/**
 * Query parameters whose values never reach a span. Link tokens, OAuth codes and keys can travel
 * in query strings (magic links, OAuth callbacks), and span attributes leave the process.
 */
export const SENSITIVE_QUERY_PARAMS: readonly string[] = [
  'token',
  'link_token',
  'access_token',
  'refresh_token',
  'id_token',
  'code',
  'state',
  'client_secret',
  'api_key',
  'key',
  'password',
  'secret',
  // The http instrumentation's own defaults, kept because setting the list replaces them.
  'sig',
  'Signature',
  'AWSAccessKeyId',
  'X-Goog-Signature',
  'X-Amz-Signature',
  'X-Amz-Credential',
  'X-Amz-Security-Token',
];

export const REDACTED = 'REDACTED';

/** The query string (with its leading `?`, or empty) with sensitive values replaced. */
export function redactQuery(search: string): string {
  if (search === '' || search === '?') return search;
  const params = new URLSearchParams(search);
  let changed = false;
  for (const name of SENSITIVE_QUERY_PARAMS) {
    if (params.has(name)) {
      params.set(name, REDACTED);
      changed = true;
    }
  }
  return changed ? `?${params.toString()}` : search;
}

/** Commands whose arguments are scripts, credentials or payloads rather than key names. */
const NAME_ONLY_COMMANDS = new Set(['eval', 'evalsha', 'eval_ro', 'evalsha_ro', 'fcall', 'fcall_ro', 'script', 'function', 'auth', 'hello', 'acl', 'config', 'migrate']);

/**
 * What a Redis span records as its statement: the command and its key, never the values. Cached
 * credentials, job payloads (BullMQ passes them as script arguments) and tokens travel as
 * arguments, and span attributes leave the process.
 */
export function redisStatement(command: string, args: ReadonlyArray<unknown>): string {
  if (args.length === 0) return command;
  if (NAME_ONLY_COMMANDS.has(command.toLowerCase())) return `${command} [${args.length} arguments]`;
  const [key] = args;
  const shownKey = typeof key === 'string' ? key : Buffer.isBuffer(key) ? key.toString('utf8') : String(key);
  return args.length === 1 ? `${command} ${shownKey}` : `${command} ${shownKey} [${args.length - 1} other arguments]`;
}
