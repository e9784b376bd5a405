import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { acceptedContent, createMcpHandler, createRequestStateCodec, inputRequired, McpServer, type InputRequest } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Listening } from './conformance-fixtures';

/**
 * The tools the conformance suite's revision 2026-07-28 server scenarios call that a 2025 server cannot offer: the
 * multi-round-trip (`input_required`) tools of the 14 `input-required-result-*` scenarios and server-stateless's
 * diagnostic tools (`test_missing_capability`, `test_streaming_elicitation`, `test_logging_tool`), each as the
 * scenario's description asks. Served by `@modelcontextprotocol/server` 2.x (`createMcpHandler`, 2026-07-28 only,
 * stateless) with its HMAC request-state codec, and registered with Patchbay as a custom connector, so the suite
 * reaches them through the edge router and the runtime's relay (Patchbay seals the server's state inside its own).
 */

const noArgs = z.object({});
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
const nameSchema = { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] };
const askName = (message = 'What is your name?') => inputRequired.elicit({ message, requestedSchema: nameSchema });
const askCapital = () => inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 });
const samplingText = (response: unknown): string | undefined => {
  const content = (response as { content?: { type?: unknown; text?: unknown } } | undefined)?.content;
  return content?.type === 'text' && typeof content.text === 'string' ? content.text : undefined;
};
const rootsOf = (response: unknown): Array<{ uri: string }> | undefined => {
  const roots = (response as { roots?: unknown } | undefined)?.roots;
  return Array.isArray(roots) ? (roots as Array<{ uri: string }>) : undefined;
};

function conformanceServer2026(codec: ReturnType<typeof createRequestStateCodec<{ step: string; name?: string }>>): McpServer {
  const mcp = new McpServer({ name: 'conformance-tools-2026', version: '2.0.0' }, { capabilities: { tools: {}, logging: {} }, requestState: { verify: codec.verify } });
  const capabilities = () => mcp.server.getClientCapabilities() ?? {};

  mcp.registerTool('test_input_required_result_elicitation', { description: 'Asks for the user name, then greets', inputSchema: noArgs }, async (_args, ctx) => {
    const answer = acceptedContent(ctx.mcpReq.inputResponses, 'user_name');
    if (typeof answer?.name !== 'string') return inputRequired({ inputRequests: { user_name: askName() } });
    return text(`Hello, ${answer.name}!`);
  });
  mcp.registerTool('test_input_required_result_sampling', { description: 'Asks the client model a question', inputSchema: noArgs }, async (_args, ctx) => {
    const answer = samplingText(ctx.mcpReq.inputResponses?.capital_question);
    if (answer === undefined) return inputRequired({ inputRequests: { capital_question: askCapital() } });
    return text(`The model said: ${answer}`);
  });
  mcp.registerTool('test_input_required_result_list_roots', { description: "Asks for the client's roots", inputSchema: noArgs }, async (_args, ctx) => {
    const roots = rootsOf(ctx.mcpReq.inputResponses?.client_roots);
    if (!roots) return inputRequired({ inputRequests: { client_roots: inputRequired.listRoots() } });
    return text(`Roots: ${roots.map((r) => r.uri).join(', ')}`);
  });
  mcp.registerTool('test_input_required_result_request_state', { description: 'Round-trips a signed requestState', inputSchema: noArgs }, async (_args, ctx) => {
    const state = ctx.mcpReq.requestState<{ step: string }>();
    const answer = acceptedContent(ctx.mcpReq.inputResponses, 'confirm');
    if (state?.step === 'confirm' && answer) return text('state-ok: the requestState came back intact');
    return inputRequired({ inputRequests: { confirm: inputRequired.elicit({ message: 'Confirm?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } }) }, requestState: await codec.mint({ step: 'confirm' }) });
  });
  mcp.registerTool('test_input_required_result_multiple_inputs', { description: 'Asks for elicitation, sampling and roots at once', inputSchema: noArgs }, async (_args, ctx) => {
    const responses = ctx.mcpReq.inputResponses ?? {};
    const name = acceptedContent(responses, 'user_name');
    const capital = samplingText(responses.capital_question);
    const roots = rootsOf(responses.client_roots);
    if (name && capital !== undefined && roots && ctx.mcpReq.requestState<{ step: string }>()?.step === 'multiple') return text(`Got ${String(name.name)}, "${capital}" and ${roots.length} root(s)`);
    return inputRequired({
      inputRequests: { user_name: askName(), capital_question: askCapital(), client_roots: inputRequired.listRoots() },
      requestState: await codec.mint({ step: 'multiple' }),
    });
  });
  mcp.registerTool('test_input_required_result_multi_round', { description: 'Asks twice, its state evolving', inputSchema: noArgs }, async (_args, ctx) => {
    const state = ctx.mcpReq.requestState<{ step: string; name?: string }>();
    const step1 = acceptedContent(ctx.mcpReq.inputResponses, 'step1');
    const step2 = acceptedContent(ctx.mcpReq.inputResponses, 'step2');
    if (state?.step === 'round-2' && step2) return text(`Done: ${state.name ?? '?'} likes ${String(step2.color)}`);
    if (state?.step === 'round-1' && typeof step1?.name === 'string') {
      return inputRequired({
        inputRequests: { step2: inputRequired.elicit({ message: 'Favourite colour?', requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] } }) },
        requestState: await codec.mint({ step: 'round-2', name: step1.name }),
      });
    }
    return inputRequired({ inputRequests: { step1: askName('Step 1: your name?') }, requestState: await codec.mint({ step: 'round-1' }) });
  });
  mcp.registerTool('test_input_required_result_tampered_state', { description: 'Rejects a requestState that fails its HMAC', inputSchema: noArgs }, async (_args, ctx) => {
    if (ctx.mcpReq.requestState<{ step: string }>()?.step === 'tamper' && acceptedContent(ctx.mcpReq.inputResponses, 'confirm')) return text('state verified');
    return inputRequired({ inputRequests: { confirm: inputRequired.elicit({ message: 'Confirm?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } }) }, requestState: await codec.mint({ step: 'tamper' }) });
  });
  mcp.registerTool('test_input_required_result_capabilities', { description: 'Asks only for what the client declared', inputSchema: noArgs }, async (_args, ctx) => {
    if (ctx.mcpReq.inputResponses && Object.keys(ctx.mcpReq.inputResponses).length > 0) return text('answered');
    const declared = capabilities();
    const requests: Record<string, InputRequest> = {};
    if (declared.sampling) requests.capital_question = askCapital();
    if (declared.elicitation) requests.user_name = askName();
    if (declared.roots) requests.client_roots = inputRequired.listRoots();
    if (Object.keys(requests).length === 0) return text('the client declared no capability to ask with');
    return inputRequired({ inputRequests: requests });
  });

  // server-stateless's diagnostic tools.
  // Asks for sampling whatever the client declared: the SDK answers -32021 with requiredCapabilities {sampling: {}}
  // when it did not (an error a tool handler throws would become an isError result instead).
  mcp.registerTool('test_missing_capability', { description: 'Needs the sampling capability', inputSchema: noArgs }, async (_args, ctx) => {
    const answer = samplingText(ctx.mcpReq.inputResponses?.capital_question);
    return answer === undefined ? inputRequired({ inputRequests: { capital_question: askCapital() } }) : text(answer);
  });
  mcp.registerTool('test_streaming_elicitation', { description: 'Streams progress, then asks for input', inputSchema: noArgs }, async (_args, ctx) => {
    const token = ctx.mcpReq._meta?.progressToken;
    if (token !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 2 } });
    const answer = acceptedContent(ctx.mcpReq.inputResponses, 'user_name');
    return answer ? text(`Hello, ${String(answer.name)}!`) : inputRequired({ inputRequests: { user_name: askName() } });
  });
  mcp.registerTool('test_logging_tool', { description: 'Logs three messages (sent only to requests that ask for logs)', inputSchema: noArgs }, async (_args, ctx) => {
    for (const step of ['started', 'working', 'done']) await ctx.mcpReq.log('info', `logging tool ${step}`);
    return text('Logging tool finished');
  });
  return mcp;
}

/** The 2026-07-28 conformance tools over node:http (the SDK handler is fetch-shaped). */
export async function startConformanceToolsServer2026(): Promise<Listening> {
  const codec = createRequestStateCodec<{ step: string; name?: string }>({ key: randomBytes(32), ttlSeconds: 600 });
  const handler = createMcpHandler(() => conformanceServer2026(codec), { legacy: 'reject' });
  const server = http.createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const controller = new AbortController();
      res.on('close', () => {
        if (!res.writableFinished) controller.abort();
      });
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
      const response = await handler.fetch(new Request(`http://127.0.0.1${req.url ?? '/'}`, { method: req.method, headers, body: req.method === 'POST' ? Buffer.concat(chunks) : undefined, signal: controller.signal }));
      res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
      if (response.body) for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
      res.end();
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await handler.close?.();
    },
  };
}
