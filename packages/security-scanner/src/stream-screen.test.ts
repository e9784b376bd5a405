import { Scanner } from './scanner';
import { StreamTextScreen } from './stream-screen';
import type { SecurityRule } from './types';

function rule(fields: Partial<SecurityRule> & Pick<SecurityRule, 'id' | 'detector'>): SecurityRule {
  return { name: `${fields.detector} rule`, direction: 'outbound', action: 'redact', enabled: true, ...fields };
}

const AWS_KEY = 'AKIAIOSFODNN7EXAMPLE';
const EMAIL = 'alice@example.com';

/** Feeds text to a screen in pieces of `size` characters; returns what reached the client and how it ended. */
function run(screen: StreamTextScreen, text: string, size: number): { released: string; blocked: string | null; releasedBeforeBlock: string } {
  let released = '';
  for (let i = 0; i < text.length; i += size) {
    const step = screen.push(text.slice(i, i + size));
    released += step.release;
    if (step.blocked) return { released, blocked: step.blocked.rule_id, releasedBeforeBlock: released };
  }
  const last = screen.flush();
  released += last.release;
  return { released, blocked: last.blocked?.rule_id ?? null, releasedBeforeBlock: released };
}

const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(Math.ceil(n / 27)).slice(0, n);

describe('StreamTextScreen: DLP on a text stream as it flows', () => {
  it('releases clean text unchanged, holding back only the window', () => {
    const screen = new StreamTextScreen(new Scanner([rule({ id: 'r', detector: 'SECRET' })]), 64);
    const text = filler(1000);
    const first = screen.push(text.slice(0, 500));
    expect(first.release).toBe(text.slice(0, 500 - 64));
    expect(screen.pending).toBe(64);
    expect(run(screen, text.slice(500), 7).released).toBe(text.slice(500 - 64));
  });

  it.each([1, 3, 7, 19])('blocks a secret split across deltas of %i characters before any of it is released', (size) => {
    const screen = new StreamTextScreen(new Scanner([rule({ id: 'r-block', detector: 'SECRET', action: 'block' })]), 64);
    const text = `${filler(300)} the deploy key is ${AWS_KEY} and more ${filler(300)}`;
    const out = run(screen, text, size);
    expect(out.blocked).toBe('r-block');
    expect(out.releasedBeforeBlock).not.toContain(AWS_KEY.slice(0, 4));
    // The text before the secret flowed: the screen is not a whole-answer buffer.
    expect(out.releasedBeforeBlock.length).toBeGreaterThan(200);
  });

  it.each([1, 5, 13])('redacts a detection split across deltas of %i characters, whatever the split', (size) => {
    const screen = new StreamTextScreen(new Scanner([rule({ id: 'r-mail', detector: 'EMAIL_ADDRESS' })]), 32);
    const text = `${filler(100)} write to ${EMAIL} today, or ${EMAIL} ${filler(120)}`;
    const out = run(screen, text, size);
    expect(out.blocked).toBeNull();
    expect(out.released).toBe(text.replaceAll(EMAIL, '[REDACTED:EMAIL_ADDRESS]'));
  });

  it('blocks at the end of the text when the secret arrives in the held window', () => {
    const screen = new StreamTextScreen(new Scanner([rule({ id: 'r-block', detector: 'SECRET', action: 'block' })]), 256);
    expect(screen.push(`short answer ${AWS_KEY}`).release).toBe('');
    expect(screen.flush().blocked?.rule_id).toBe('r-block');
    // Stopped: nothing more is released.
    expect(screen.push(filler(1000)).release).toBe('');
  });

  it('never splits a surrogate pair at the cut', () => {
    const screen = new StreamTextScreen(new Scanner([rule({ id: 'r', detector: 'SECRET' })]), 4);
    const text = 'ab😀cd😀ef😀gh😀ij';
    let released = '';
    for (const ch of text.split('')) {
      const step = screen.push(ch);
      if (step.release) expect(step.release.charCodeAt(step.release.length - 1) >= 0xd800 && step.release.charCodeAt(step.release.length - 1) <= 0xdbff).toBe(false);
      released += step.release;
    }
    expect(released + screen.flush().release).toBe(text);
  });

  it.each([[20, 1000], [20, 64]])('many detections close together are all redacted (window %i, cap %i)', (holdBack, maxHeld) => {
    const screen = new StreamTextScreen(new Scanner([rule({ id: 'r-mail', detector: 'EMAIL_ADDRESS' })]), holdBack, 'outbound', maxHeld);
    // An address every 10 characters: most cuts straddle one, so text waits for a clean cut or the cap.
    const text = Array.from({ length: 40 }, (_, i) => `u${i % 10}@ex.io`).join(', ');
    const out = run(screen, text, 3);
    expect(out.released).toBe(text.replace(/u\d@ex\.io/g, '[REDACTED:EMAIL_ADDRESS]'));
  });
});
