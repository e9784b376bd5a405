import { startFakeOpenAI } from '@patchbay/provider-fakes';

/**
 * The upstream of pnpm bench gateway: the fake OpenAI API of packages/provider-fakes, in a process of
 * its own (PORT), answering at once and keeping no requests, so memory stays flat under load.
 * Health: GET /__fake/health.
 */
async function main(): Promise<void> {
  // A benchmark sends far more than any real key's per-minute limits: lift the fake's.
  const fake = await startFakeOpenAI({ port: Number(process.env.PORT), recordRequests: false, rateLimits: { requestsPerMinute: 1e12, tokensPerMinute: 1e15 } });
  process.once('SIGTERM', () => {
    void fake.close().then(() => process.exit(0));
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`fake OpenAI could not start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
