import { BatchInputError, parseBatchInput } from './batch-input';

const line = (customId: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ custom_id: customId, method: 'POST', url: '/v1/chat/completions', body: { model: 'openai/gpt-4o', messages: [] }, ...extra });
const parse = (text: string, maxLines = 100) => parseBatchInput(Buffer.from(text, 'utf8'), maxLines);
const failure = (text: string, maxLines = 100): BatchInputError => {
  try {
    parse(text, maxLines);
  } catch (err) {
    if (err instanceof BatchInputError) return err;
    throw err;
  }
  throw new Error('expected a BatchInputError');
};

describe('parseBatchInput', () => {
  test('reads every line, CRLF and trailing blank lines included', () => {
    const lines = parse(`${line('a')}\r\n${line('b', { url: '/v1/embeddings' })}\n\n`);
    expect(lines.map((l) => [l.customId, l.url])).toEqual([['a', '/v1/chat/completions'], ['b', '/v1/embeddings']]);
  });

  test('names the line (1-based) and its custom_id', () => {
    expect(failure(`${line('a')}\n${line('b', { method: 'PUT' })}`)).toMatchObject({ code: 'invalid_batch_file', line: 2, message: 'Line 2 (custom_id "b"): method must be "POST" (got "PUT").' });
    expect(failure(`${line('a')}\n\n${line('c')}`).message).toBe('Line 2: is empty; every line must be one JSON request object.');
    expect(failure('[1]').message).toBe('Line 1: is not a JSON object.');
    expect(failure(JSON.stringify({ method: 'POST' })).message).toBe('Line 1: custom_id must be a non-empty string.');
    expect(failure(line('x', { body: 'text' })).message).toBe('Line 1 (custom_id "x"): body must be a JSON object: the request the url takes.');
  });

  test('a repeated custom_id names both lines', () => {
    expect(failure([line('a'), line('b'), line('a')].join('\n'))).toMatchObject({ code: 'duplicate_custom_id', line: 3, message: 'Line 3: custom_id "a" is already used on line 1; each line needs its own custom_id.' });
  });

  test('an empty file and one over the line limit are refused', () => {
    expect(failure('\n\n').message).toContain('no request lines');
    expect(failure([line('a'), line('b'), line('c')].join('\n'), 2)).toMatchObject({ code: 'too_many_lines' });
  });

  test('a file that is not UTF-8 is refused', () => {
    expect(() => parseBatchInput(Buffer.from([0xff, 0xfe, 0x00, 0x7b]), 10)).toThrow('not UTF-8');
  });
});
