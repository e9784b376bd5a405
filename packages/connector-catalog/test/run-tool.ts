import { createGuardedRequest } from '@patchbay/outbound';
import { findTool, getBuiltinConnector } from '../src/catalog';
import { resolveBaseUrl } from '../src/core/base-url';
import { ToolError } from '../src/core/tool-error';
import { DEFAULT_TOOL_LIMITS, type InjectedCredential, type ToolLimits } from '../src/core/types';
import { validateToolArguments } from '../src/core/validate';

/** The fakes listen on 127.0.0.1 over http://, which the guarded client allows only for local development. */
export const localHttp = createGuardedRequest({ allowPrivateNetwork: true }, { requireHttps: false });

/**
 * Runs a catalog tool the way mcp-runtime does: arguments checked against the input schema,
 * then the executor with the injected credential and the (fake) provider's base URL.
 */
export async function runTool(
  slug: string,
  toolName: string,
  args: unknown,
  options: { credential: InjectedCredential; baseUrl: string; limits?: Partial<ToolLimits>; signal?: AbortSignal },
): Promise<unknown> {
  const connector = getBuiltinConnector(slug);
  if (!connector) throw new Error(`no connector ${slug}`);
  const tool = findTool(connector, toolName);
  if (!tool) throw new Error(`no tool ${slug}.${toolName}`);
  const problems = validateToolArguments(tool, args);
  if (problems.length > 0) throw new ToolError('invalid_input', `Invalid arguments: ${problems.join('; ')}`);
  const input = (args as { input: unknown }).input;
  return tool.execute(
    {
      credential: options.credential,
      baseUrl: resolveBaseUrl(connector, options.credential, { [slug]: options.baseUrl }),
      signal: options.signal ?? new AbortController().signal,
      http: localHttp,
      limits: { ...DEFAULT_TOOL_LIMITS, ...options.limits },
    },
    input as never,
  );
}

/** Expects a ToolError of this kind and returns it for more assertions. */
export async function expectToolError(promise: Promise<unknown>, kind: ToolError['kind']): Promise<ToolError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ToolError);
    expect((err as ToolError).kind).toBe(kind);
    return err as ToolError;
  }
  throw new Error(`expected a ${kind} ToolError`);
}
