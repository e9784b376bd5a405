import { ValidationError } from '@patchbay/errors';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, pageNumberList, parsePageParams } from './page-number';

const req = (originalUrl: string, headers: Record<string, string> = {}) => ({ protocol: 'http', originalUrl, headers: { host: 'svc:8081', ...headers } });

describe('parsePageParams', () => {
  it('defaults to page 1 and the default page size', () => {
    expect(parsePageParams(undefined, undefined)).toEqual({ page: 1, pageSize: PAGE_SIZE_DEFAULT, offset: 0 });
  });

  it('accepts the maximum page size and rejects one beyond it with a 400 naming page_size', () => {
    expect(parsePageParams('2', String(PAGE_SIZE_MAX)).offset).toBe(PAGE_SIZE_MAX);
    expect(() => parsePageParams('1', String(PAGE_SIZE_MAX + 1))).toThrow(ValidationError);
    try {
      parsePageParams('1', '101');
    } catch (e) {
      expect((e as ValidationError).fieldErrors).toEqual([{ field: 'query.page_size', message: 'must be an integer from 1 to 100' }]);
    }
  });

  it.each(['0', '-1', '1.5', 'abc', '', '0x10', '1e1', ' 2', '+3'])('rejects page=%j: only integers from 1 are accepted', (page) => {
    expect(() => parsePageParams(page, undefined)).toThrow(ValidationError);
  });

  it.each(['', '0x10', '1e1', '10.0'])('rejects page_size=%j naming page_size', (size) => {
    expect(() => parsePageParams('1', size)).toThrow(expect.objectContaining({ fieldErrors: [{ field: 'query.page_size', message: 'must be an integer from 1 to 100' }] }));
  });
});

describe('pageNumberList', () => {
  it('builds absolute next and previous URLs from the X-Forwarded headers the edge router sets', () => {
    const list = pageNumberList(
      req('/api/v1/access-keys/?page=2&page_size=10&search=x', { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.com' }),
      parsePageParams('2', '10'),
      35,
      ['a'],
    );
    expect(list.count).toBe(35);
    expect(list.next).toBe('https://api.example.com/api/v1/access-keys/?page=3&page_size=10&search=x');
    expect(list.previous).toBe('https://api.example.com/api/v1/access-keys/?page=1&page_size=10&search=x');
  });

  it('has no next link on the last page and no previous link on the first', () => {
    const list = pageNumberList(req('/x/'), parsePageParams('1', '10'), 10, []);
    expect(list.next).toBeNull();
    expect(list.previous).toBeNull();
  });

  it('uses the socket host when no forwarded headers are present', () => {
    const list = pageNumberList(req('/x/?page=1&page_size=1'), parsePageParams('1', '1'), 2, []);
    expect(list.next).toBe('http://svc:8081/x/?page=2&page_size=1');
  });

  it('prefers a configured public base URL', () => {
    const list = pageNumberList(req('/x/?page=1&page_size=1'), parsePageParams('1', '1'), 2, [], 'https://patchbay.example/');
    expect(list.next).toBe('https://patchbay.example/x/?page=2&page_size=1');
  });
});
