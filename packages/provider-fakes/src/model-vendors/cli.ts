import { parseArgs } from 'node:util';
import { startFakeAnthropic } from './anthropic';
import { startFakeGemini } from './gemini';
import { startFakeOpenAI } from './openai';
import { type OpenAICompatibleFlavour, startFakeOpenAICompatible } from './openai-compatible';
import type { FakeVendor, FakeVendorOptions } from './types';

const USAGE = `Runs model-vendor fakes in a process of their own (for benchmarks and manual tests).

  node packages/provider-fakes/dist/model-vendors/cli.js --vendor openai [--vendor anthropic ...] [options]

  --vendor <name>          openai | anthropic | gemini | openai-compatible (repeatable)
  --port <n>               port of the first vendor (the next ones take port+1, port+2…; default: any free port)
  --flavour <name>         openai-compatible flavour: generic | groq | together | mistral | vllm | ollama
  --path-prefix <path>     openai-compatible path prefix (default per flavour)
  --latency-ms <n>         wait before every answer
  --token-interval-ms <n>  wait between stream frames
  --rpm <n> --tpm <n>      per-key rate limits per minute
  --strict-models          unknown models get the vendor's 404
  --record                 keep every request (GET /__fake/requests); off by default so memory stays flat

Prints one JSON line per vendor: {"vendor","url","baseUrl","control","apiKeys"}. Stops on SIGINT/SIGTERM.`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      vendor: { type: 'string', multiple: true },
      port: { type: 'string' },
      flavour: { type: 'string' },
      'path-prefix': { type: 'string' },
      'latency-ms': { type: 'string' },
      'token-interval-ms': { type: 'string' },
      rpm: { type: 'string' },
      tpm: { type: 'string' },
      'strict-models': { type: 'boolean' },
      record: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  const vendors = values.vendor ?? [];
  if (values.help || vendors.length === 0) {
    process.stdout.write(`${USAGE}\n`);
    process.exitCode = values.help ? 0 : 2;
    return;
  }
  const number = (name: string, v: string | undefined) => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} takes a non-negative number, not "${v}"`);
    return n;
  };
  const basePort = number('port', values.port);
  const common: FakeVendorOptions = {
    latencyMs: number('latency-ms', values['latency-ms']),
    tokenIntervalMs: number('token-interval-ms', values['token-interval-ms']),
    rateLimits: { requestsPerMinute: number('rpm', values.rpm), tokensPerMinute: number('tpm', values.tpm) },
    strictModels: values['strict-models'] ?? false,
    recordRequests: values.record ?? false,
  };
  if (common.rateLimits?.requestsPerMinute === undefined) delete common.rateLimits?.requestsPerMinute;
  if (common.rateLimits?.tokensPerMinute === undefined) delete common.rateLimits?.tokensPerMinute;
  const started: FakeVendor[] = [];
  for (const [i, vendor] of vendors.entries()) {
    const options = { ...common, port: basePort === undefined ? 0 : basePort + i };
    let fake: FakeVendor;
    switch (vendor) {
      case 'openai':
        fake = await startFakeOpenAI(options);
        break;
      case 'anthropic':
        fake = await startFakeAnthropic(options);
        break;
      case 'gemini':
        fake = await startFakeGemini(options);
        break;
      case 'openai-compatible':
        fake = await startFakeOpenAICompatible({ ...options, flavour: values.flavour as OpenAICompatibleFlavour | undefined, pathPrefix: values['path-prefix'] });
        break;
      default:
        throw new Error(`Unknown vendor "${vendor}": use openai, anthropic, gemini or openai-compatible`);
    }
    started.push(fake);
    process.stdout.write(`${JSON.stringify({ vendor, url: fake.url, baseUrl: fake.baseUrl, control: fake.control.url, apiKeys: fake.apiKeys })}\n`);
  }
  const stop = () => {
    void Promise.all(started.map((f) => f.close())).then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
});
