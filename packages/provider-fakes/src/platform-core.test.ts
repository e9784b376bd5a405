import { LazyCollection } from './lazy-collection';
import { createFakeClock } from './platform-clock';
import { RateLimiter } from './platform-limits';
import { decodePageToken, encodePageToken } from './platform-tokens';
import { person, shortId } from './seed-data';

describe('lazy collections', () => {
  it('makes seeded records on demand, the same each time, and pages past removed ones by position', () => {
    const made: number[] = [];
    const list = new LazyCollection<{ k: number }>();
    list.appendLazy(1_000_000, (k) => {
      made.push(k);
      return { k };
    });
    expect(made).toEqual([]);
    expect(list.liveCount).toBe(1_000_000);
    list.remove(2);
    list.set(3, { k: 33 });
    const page = list.page(0, 3);
    expect(page.items.map((i) => i.item.k)).toEqual([0, 1, 33]);
    expect(page.next).toBe(4);
    expect(list.page(999_999, 10)).toEqual({ items: [{ pos: 999_999, item: { k: 999_999 } }], next: null });
    expect(made.length).toBeLessThan(10);
    const pos = list.append({ k: -1 });
    expect(list.page(999_999, 10).items.map((i) => i.item.k)).toEqual([999_999, -1]);
    expect(list.get(pos)).toEqual({ k: -1 });
  });

  it('lets a filter skip a whole seeded segment and still see its changed records', () => {
    const list = new LazyCollection<{ changed: number }, { stamp: number }>();
    list.appendLazy(100, () => ({ changed: 10 }), { stamp: 10 });
    list.set(50, { changed: 20 });
    let made = 0;
    const page = list.page(0, 10, (r) => (made += 1) > 0 && r.changed >= 15, (meta) => (meta?.stamp ?? 0) < 15);
    expect(page.items.map((i) => i.pos)).toEqual([50]);
    expect(made).toBe(1);
  });
});

describe('rate limiter', () => {
  it('counts a rolling window, refuses without counting, and lets requests through as the oldest leave it', () => {
    const limiter = new RateLimiter([{ name: 'TEN', limit: 2, window: { rolling: 10_000 } }]);
    expect(limiter.take('a', 0).allowed).toBe(true);
    expect(limiter.take('a', 4_000).allowed).toBe(true);
    const refused = limiter.take('a', 9_000);
    expect(refused).toMatchObject({ allowed: false, tripped: { remaining: 0, resetAt: 10_000 } });
    expect(limiter.take('b', 9_000).allowed).toBe(true);
    expect(limiter.take('a', 10_001).allowed).toBe(true);
    expect(limiter.take('a', 10_002).allowed).toBe(false);
  });

  it('starts fixed windows and days over on their boundaries', () => {
    const limiter = new RateLimiter([
      { name: 'QPS', limit: 1, window: { fixed: 1000 } },
      { name: 'DAY', limit: 2, window: 'utc-day' },
    ]);
    const day = Date.UTC(2026, 0, 1);
    expect(limiter.take('a', day + 100).allowed).toBe(true);
    expect(limiter.take('a', day + 900)).toMatchObject({ allowed: false, tripped: { spec: { name: 'QPS' } } });
    expect(limiter.take('a', day + 1000).allowed).toBe(true);
    expect(limiter.take('a', day + 5000)).toMatchObject({ allowed: false, tripped: { spec: { name: 'DAY' }, resetAt: day + 86_400_000 } });
    expect(limiter.take('a', day + 86_400_000).allowed).toBe(true);
  });
});

describe('fake clock', () => {
  it('moves with advance and set while frozen, and stamps strictly increasing times', () => {
    const clock = createFakeClock({ startAt: 1_000, frozen: true });
    expect(clock.now()).toBe(1_000);
    clock.advance(500);
    expect(clock.now()).toBe(1_500);
    expect([clock.stamp(), clock.stamp(), clock.stamp()]).toEqual([1_500, 1_501, 1_502]);
    clock.set(10_000);
    expect(clock.stamp()).toBe(10_000);
  });
});

describe('page tokens and seed data', () => {
  it('reads back a token it made and refuses an altered or made-up one', () => {
    const token = encodePageToken({ f: 'x', p: 42 });
    expect(decodePageToken(token)).toEqual({ f: 'x', p: 42 });
    const altered = Buffer.from(Buffer.from(token, 'base64url').toString('utf8').replace('42', '43')).toString('base64url');
    expect(decodePageToken(altered)).toBeNull();
    expect(decodePageToken('hello')).toBeNull();
  });

  it('makes the same person from the same number, with unique emails and ids', () => {
    expect(person(1, 7)).toEqual(person(1, 7));
    const emails = new Set(Array.from({ length: 5000 }, (_, n) => person(1, n).email));
    expect(emails.size).toBe(5000);
    const ids = new Set(Array.from({ length: 5000 }, (_, n) => shortId(n * 1_000_003, 9)));
    expect(ids.size).toBe(5000);
    expect(shortId(5, 9)).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });
});
