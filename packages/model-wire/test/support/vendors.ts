import { startFakeAnthropic, startFakeOpenAI, type FakeVendor } from '@patchbay/provider-fakes';
import type { StreamTimeouts, VendorTarget } from '../../src';
import { startMiniGateway, type MiniGateway } from './mini-gateway';

export interface OpenAIAndAnthropic {
  openaiFake: FakeVendor;
  anthropicFake: FakeVendor;
  gateway: MiniGateway;
}

/**
 * The OpenAI and Anthropic fakes behind a mini gateway, started before the file's tests, reset
 * before each and closed after all. Read the fields inside tests (they are set in beforeAll).
 */
export function useOpenAIAndAnthropic(timeouts?: StreamTimeouts): OpenAIAndAnthropic {
  const env = {} as OpenAIAndAnthropic;
  beforeAll(async () => {
    env.openaiFake = await startFakeOpenAI();
    env.anthropicFake = await startFakeAnthropic();
    env.gateway = await startMiniGateway(
      {
        openai: { baseUrl: env.openaiFake.baseUrl, apiKey: env.openaiFake.apiKeys.valid },
        anthropic: { baseUrl: env.anthropicFake.baseUrl, apiKey: env.anthropicFake.apiKeys.valid },
      },
      timeouts,
    );
  });
  afterAll(async () => {
    await env.gateway.close();
    await env.openaiFake.close();
    await env.anthropicFake.close();
  });
  beforeEach(() => {
    env.openaiFake.reset();
    env.anthropicFake.reset();
    env.gateway.errors.length = 0;
  });
  return env;
}

/** A call target on one of the two fakes (read inside a test: the fakes start in beforeAll). */
export function fakeTarget(env: OpenAIAndAnthropic, vendor: 'openai' | 'anthropic'): VendorTarget {
  const fake = vendor === 'openai' ? env.openaiFake : env.anthropicFake;
  return {
    dialect: vendor,
    vendor,
    baseUrl: fake.baseUrl,
    apiKey: fake.apiKeys.valid,
    vendorModel: vendor === 'openai' ? 'gpt-4o' : 'claude-sonnet-4',
    model: vendor === 'openai' ? 'openai/gpt-4o' : 'anthropic/claude-sonnet-4',
  };
}
