import { ConfigError } from '@patchbay/service-kit';
import { loadConfig } from './config';

describe('loadConfig', () => {
  it('defaults to port 8080, access keys on 8081 and every other service not deployed', () => {
    const config = loadConfig({});
    expect(config.port).toBe(8080);
    expect(config.upstreams['access-keys-and-audit']?.href).toBe('http://127.0.0.1:8081/');
    expect(config.upstreams['mcp-runtime']).toBeUndefined();
    expect(config.trustForwarded).toBe(false);
    expect(config.upstreamTimeoutMs).toBe(60_000);
  });

  it('treats an empty service URL as not deployed', () => {
    expect(loadConfig({ MODEL_GATEWAY_URL: '' }).upstreams['model-gateway']).toBeUndefined();
  });

  it('refuses to start naming every invalid variable', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', MCP_RUNTIME_URL: 'https://mcp:8083', UNIFIED_DATA_URL: 'not a url', EDGE_TRUST_FORWARDED: 'maybe' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['PORT', 'MCP_RUNTIME_URL', 'UNIFIED_DATA_URL', 'EDGE_TRUST_FORWARDED']) expect(problems).toContain(name);
  });
});
