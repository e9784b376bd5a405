import { ValidationError } from '@patchbay/errors';
import { cursorList, decodeCursor, encodeCursor, parseCursorPageSize } from './cursor';

const rows = Array.from({ length: 7 }, (_, i) => ({ id: `id${i}`, t: i }));
const keyOf = (r: { id: string; t: number }) => [r.t, r.id];

/** Simulates a keyset query over `rows` the way a service would run it in SQL. */
function fetchPage(pageSize: number, cursor: string | null) {
  const from = cursor ? decodeCursor(cursor) : null;
  let slice: typeof rows;
  if (!from) slice = rows.slice(0, pageSize + 1);
  else if (from.direction === 'next') slice = rows.filter((r) => r.t > (from.key[0] as number)).slice(0, pageSize + 1);
  else slice = rows.filter((r) => r.t < (from.key[0] as number)).slice(-(pageSize + 1));
  return cursorList(slice, { pageSize, from, keyOf });
}

describe('cursor lists', () => {
  it('walks forward until next is null and back again', () => {
    const p1 = fetchPage(3, null);
    expect(p1.results.map((r) => r.t)).toEqual([0, 1, 2]);
    expect(p1.previous).toBeNull();
    const p2 = fetchPage(3, p1.next);
    expect(p2.results.map((r) => r.t)).toEqual([3, 4, 5]);
    const p3 = fetchPage(3, p2.next);
    expect(p3.results.map((r) => r.t)).toEqual([6]);
    expect(p3.next).toBeNull();
    const back = fetchPage(3, p3.previous);
    expect(back.results.map((r) => r.t)).toEqual([3, 4, 5]);
    const first = fetchPage(3, back.previous);
    expect(first.results.map((r) => r.t)).toEqual([0, 1, 2]);
    expect(first.previous).toBeNull();
  });

  it('round-trips a cursor and rejects a forged one with a 400 naming cursor', () => {
    expect(decodeCursor(encodeCursor({ key: ['2026-01-01', 'x'], direction: 'previous' }))).toEqual({ key: ['2026-01-01', 'x'], direction: 'previous' });
    expect(() => decodeCursor('not-a-cursor')).toThrow(ValidationError);
    expect(() => decodeCursor(Buffer.from('{"k":[],"d":"n"}').toString('base64url'))).toThrow(ValidationError);
  });

  it('bounds page_size', () => {
    expect(parseCursorPageSize(undefined)).toBe(100);
    expect(() => parseCursorPageSize('0')).toThrow(ValidationError);
    for (const bad of ['', '0x10', '1e1', '2.0']) expect(() => parseCursorPageSize(bad)).toThrow(ValidationError);
    expect(() => parseCursorPageSize('101')).toThrow(ValidationError);
  });
});
