import type { StackFrame } from './cpu-profile';
import { STAGES, STAGE_ORDER, runtimeStageOf } from './mcp-profile';

const frame = (functionName: string, file: string, origin = file): StackFrame => ({ functionName, file, origin });
const ROOT = frame('(root)', '');
const EXPRESS = frame('handle', 'express/lib/router/layer.js', 'express');
const ENDPOINT = frame('handle', 'apps/mcp-runtime/dist/mcp/mcp-endpoint.js');

describe('the stage of an mcp-runtime profile sample', () => {
  it('names the stage of the innermost frame of ours, whatever library code runs under it', () => {
    const parse = frame('parse', '', '(native / V8 builtins)');
    expect(runtimeStageOf([parse, frame('credential', 'apps/mcp-runtime/dist/domain/registry-client.js'), frame('callBuiltin', 'apps/mcp-runtime/dist/domain/execute.js'), ROOT])).toBe(STAGES.credential);
    expect(runtimeStageOf([frame('digest', 'node:internal/crypto/hash'), frame('hashAccessKey', 'packages/auth/dist/keys.js'), EXPRESS, ROOT])).toBe(STAGES.auth);
    expect(runtimeStageOf([frame('sendCommand', 'ioredis/built/Redis.js', 'ioredis'), frame('check', 'packages/metering/dist/meter.js'), ENDPOINT, ROOT])).toBe(STAGES.meter);
    expect(runtimeStageOf([frame('validate', 'ajv/dist/compile/index.js', 'ajv'), frame('validateToolArguments', 'packages/connector-catalog/dist/core/validate.js'), ROOT])).toBe(STAGES.arguments);
    expect(runtimeStageOf([frame('execute', 'packages/connector-catalog/dist/connectors/github/issues.js'), frame('callBuiltin', 'apps/mcp-runtime/dist/domain/execute.js'), ROOT])).toBe(STAGES.provider);
    expect(runtimeStageOf([frame('scan', 'packages/security-scanner/dist/engine.js'), ENDPOINT, ROOT])).toBe(STAGES.scan);
    expect(runtimeStageOf([frame('scannerFor', 'apps/mcp-runtime/dist/domain/rule-set-cache.js'), ENDPOINT, ROOT])).toBe(STAGES.scan);
    expect(runtimeStageOf([frame('recordToolCall', 'apps/mcp-runtime/dist/domain/tool-call-records.js'), ENDPOINT, ROOT])).toBe(STAGES.record);
    expect(runtimeStageOf([frame('add', 'bullmq/dist/cjs/classes/queue.js', 'bullmq'), frame('record', 'apps/mcp-runtime/dist/domain/scanned-call.js'), ROOT])).toBe(STAGES.record);
    expect(runtimeStageOf([frame('packTools', 'apps/mcp-runtime/dist/domain/registry-client.js'), frame('loadPair', 'apps/mcp-runtime/dist/mcp/mcp-endpoint.js'), ROOT])).toBe(STAGES.resolution);
  });

  it('counts the per-POST SDK server and transport, and the endpoint itself, as the MCP endpoint', () => {
    expect(runtimeStageOf([frame('stringify', ''), frame('handlePostRequest', '@modelcontextprotocol/sdk/dist/cjs/server/streamableHttp.js', '@modelcontextprotocol/sdk'), ENDPOINT, EXPRESS, ROOT])).toBe(STAGES.mcpServer);
    expect(runtimeStageOf([frame('Server', '@modelcontextprotocol/sdk/dist/cjs/server/index.js', '@modelcontextprotocol/sdk'), ROOT])).toBe(STAGES.mcpServer);
    expect(runtimeStageOf([frame('responseViaResponseObject', '@hono/node-server/dist/listener.js', '@hono/node-server'), ROOT])).toBe(STAGES.mcpServer);
    // The client half of the SDK is the custom connector's call to its server.
    expect(runtimeStageOf([frame('send', '@modelcontextprotocol/sdk/dist/cjs/client/streamableHttp.js', '@modelcontextprotocol/sdk'), ROOT])).toBe(STAGES.provider);
  });

  it('falls back to the library at the innermost frame that names one', () => {
    expect(runtimeStageOf([frame('writev', 'node:net'), frame('write', 'node:internal/deps/undici/undici', 'node:internal/deps'), ROOT])).toBe(STAGES.httpClient);
    expect(runtimeStageOf([frame('parserOnHeadersComplete', 'node:_http_common'), ROOT])).toBe(STAGES.http);
    expect(runtimeStageOf([frame('jsonParser', 'body-parser/lib/types/json.js', 'body-parser'), ROOT])).toBe(STAGES.http);
    expect(runtimeStageOf([frame('requestLogger', 'packages/service-kit/dist/app.js'), ROOT])).toBe(STAGES.http);
    expect(runtimeStageOf([frame('returnReply', 'ioredis/built/DataHandler.js', 'ioredis'), ROOT])).toBe(STAGES.redis);
    expect(runtimeStageOf([frame('Ni', '@prisma/client/runtime/client.js', '@prisma/client'), ROOT])).toBe(STAGES.database);
    expect(runtimeStageOf([frame('write', 'pino/lib/proto.js', 'pino'), frame('requestLogger', 'packages/service-kit/dist/app.js'), ROOT])).toBe(STAGES.logging);
    expect(runtimeStageOf([frame('(garbage collector)', '', '(garbage collector)'), ROOT])).toBe(STAGES.gc);
    expect(runtimeStageOf([frame('(program)', '', '(program)'), ROOT])).toBe(STAGES.other);
  });

  it('lists every stage once, in the order a call meets them', () => {
    expect(new Set(STAGE_ORDER).size).toBe(Object.keys(STAGES).length);
    expect(STAGE_ORDER.indexOf(STAGES.auth)).toBeLessThan(STAGE_ORDER.indexOf(STAGES.meter));
    expect(STAGE_ORDER.indexOf(STAGES.credential)).toBeLessThan(STAGE_ORDER.indexOf(STAGES.provider));
  });
});
