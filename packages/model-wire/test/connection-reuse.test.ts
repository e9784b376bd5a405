import { sendThrough } from '@patchbay/outbound';
import { Agent } from 'undici';
import { callVendor, parseSurfaceRequest, streamVendor, type CanonicalStreamEvent, type VendorHttp, type VendorTarget } from '../src';
import { fakeTarget, useOpenAIAndAnthropic } from './support/vendors';

const timeouts = { firstTokenMs: 2_000, betweenTokensMs: 2_000, totalMs: 10_000 };
const env = useOpenAIAndAnthropic(timeouts);

/** A keep-alive pool like createVendorHttp's, counting the connections it opens and those it loses. */
function countingHttp(): { http: VendorHttp; opened: () => number; closed: () => number; close: () => Promise<void> } {
  const agent = new Agent({ connections: 8, keepAliveTimeout: 30_000, pipelining: 1 });
  let opened = 0;
  let closed = 0;
  agent.on('connect', () => (opened += 1));
  agent.on('disconnect', () => (closed += 1));
  return { http: (url, init) => sendThrough(agent, url, init), opened: () => opened, closed: () => closed, close: () => agent.close() };
}

const target = (vendor: 'openai' | 'anthropic'): VendorTarget => fakeTarget(env, vendor);

const request = (stream: boolean) => parseSurfaceRequest('openai-chat', { model: 'x', stream, messages: [{ role: 'user', content: 'one two three four five' }] }).request;
const options = (http: VendorHttp) => ({ signal: new AbortController().signal, timeouts, http });

describe('a vendor connection is kept for the next request once a stream has finished', () => {
  // A finished stream's connection is free once its last bytes are read ([DONE], the chunked
  // terminator), just after its finish reached the caller: the next request may find it still busy
  // and open a second one, never more. Before, every stream's connection was closed at its finish.
  test.each(['openai', 'anthropic'] as const)('%s: ten streams one after another, then a plain call, keep their connections (at most two)', async (vendor) => {
    const pool = countingHttp();
    try {
      for (let i = 0; i < 10; i++) {
        const events: CanonicalStreamEvent[] = [];
        for await (const event of await streamVendor(target(vendor), request(true), options(pool.http))) events.push(event);
        expect(events.at(-1)?.type).toBe('finish');
      }
      await callVendor(target(vendor), request(false), options(pool.http));
      expect(pool.closed()).toBe(0);
      expect(pool.opened()).toBeLessThanOrEqual(2);
    } finally {
      await pool.close();
    }
  });

  it('a stream the caller leaves before its finish closes its connection: the rest of the answer is not read', async () => {
    const pool = countingHttp();
    try {
      env.openaiFake.script({ text: Array.from({ length: 500 }, (_, i) => `word${i}`).join(' ') });
      let texts = 0;
      for await (const event of await streamVendor(target('openai'), request(true), options(pool.http))) {
        if (event.type === 'text_delta' && ++texts === 3) break;
      }
      const deadline = Date.now() + 5_000;
      while (pool.closed() === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(pool.closed()).toBe(1);
      // The pool still serves the next call.
      await callVendor(target('openai'), request(false), options(pool.http));
    } finally {
      await pool.close();
    }
  });
});
