import { AuthenticationError } from '@patchbay/errors';
import { parseBearer } from './bearer';

describe('parseBearer', () => {
  it('reads the key from "Authorization: Bearer <key>"', () => {
    expect(parseBearer('Bearer pb_live_abc')).toBe('pb_live_abc');
  });

  it.each([undefined, '', 'bearer pb_live_abc', 'BEARER pb_live_abc', 'Token pb_live_abc', 'Bearer', 'Bearer  two words', 'pb_live_abc'])(
    'rejects %p with a 401: the word Bearer is required and case-sensitive',
    (header) => {
      expect(() => parseBearer(header)).toThrow(AuthenticationError);
    },
  );
});
