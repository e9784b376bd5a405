import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { benchTools, createPagedMcpServer, echoCall, toolsPage } from './registry-mcp-server';

describe('the MCP server pnpm bench registry registers', () => {
  it('splits 50 tools into pages of 17, 17 and 16 linked by cursors', () => {
    const tools = benchTools(50);
    const first = toolsPage(tools, 17, undefined);
    const second = toolsPage(tools, 17, first.nextCursor);
    const third = toolsPage(tools, 17, second.nextCursor);
    expect([first.tools.length, second.tools.length, third.tools.length]).toEqual([17, 17, 16]);
    expect(third.nextCursor).toBeUndefined();
    expect(new Set([...first.tools, ...second.tools, ...third.tools].map((t) => t.name)).size).toBe(50);
  });

  it('answers the SDK client with every page behind the bearer secret, and 401 without it', async () => {
    const server = createPagedMcpServer({ toolCount: 50, pageSize: 17, secret: 's3cret' });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
    try {
      const client = new Client({ name: 'test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: 'Bearer s3cret' } } }));
      let cursor: string | undefined;
      const pages: number[] = [];
      do {
        const page = await client.listTools(cursor === undefined ? undefined : { cursor });
        pages.push(page.tools.length);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      const called = await client.callTool({ name: 'tool_002', arguments: { query: 'q' } });
      await client.close();
      expect(pages).toEqual([17, 17, 16]);
      expect(called.structuredContent).toEqual({ tool: 'tool_002', arguments: { query: 'q' } });

      const refused = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(refused.status).toBe(401);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('echoes a call to one of its tools, and answers an unknown tool with an error result', () => {
    const tools = benchTools(2);
    expect(echoCall(tools, 'tool_001', { query: 'x' })).toEqual({
      content: [{ type: 'text', text: '{"tool":"tool_001","arguments":{"query":"x"}}' }],
      structuredContent: { tool: 'tool_001', arguments: { query: 'x' } },
    });
    expect(echoCall(tools, 'tool_009', {})).toMatchObject({ isError: true });
  });
});
