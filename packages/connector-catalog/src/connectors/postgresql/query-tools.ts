import { READ_ONLY, arr, bool, inputSchema, int, objectSchema, str } from '../../core/schema';
import type { JsonSchema, ToolDefinition } from '../../core/types';
import { fetchRows, withReadOnlyTransaction } from './client';

type Param = string | number | boolean | null;

const sqlParam = str('One SQL statement; refer to parameters as $1, $2...', { minLength: 1, maxLength: 100_000 });
const paramsParam: JsonSchema = { type: 'array', items: { type: ['string', 'number', 'boolean', 'null'] }, maxItems: 1000, description: 'Values for $1, $2... in order' };

/** JSON-friendly cell values: byte arrays as PostgreSQL's hex text. */
function cell(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return `\\x${value.toString('hex')}`;
  if (Array.isArray(value)) return value.map(cell);
  return value;
}

/** Column names as object keys; a repeated name (SELECT a.id, b.id) gets a suffix instead of overwriting. */
function uniqueNames(names: string[]): string[] {
  const seen = new Map<string, number>();
  return names.map((name) => {
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    return n === 1 ? name : `${name}_${n}`;
  });
}

export const runQuery: ToolDefinition<{ sql: string; params?: Param[] }> = {
  name: 'run_query',
  description:
    'Run one read-only SQL statement on the connected PostgreSQL database and return its rows. It runs in a READ ONLY transaction that is always rolled back, under a statement timeout, and returns at most the deployment\'s row limit (truncated: true when there were more; add LIMIT or filters). Writes (INSERT, UPDATE, DELETE, DDL) are refused. Use $1, $2... with params for values.',
  input_schema: inputSchema({ sql: sqlParam, params: paramsParam }, ['sql']),
  output_schema: objectSchema(
    {
      columns: arr(objectSchema({ name: str('Column name (as a key in rows)'), type: str('PostgreSQL type') }, ['name', 'type']), 'Result columns in order'),
      rows: arr({ type: 'object' }, 'Rows as objects keyed by column name'),
      row_count: int('Rows returned'),
      truncated: bool('True when more rows existed than were returned'),
    },
    ['columns', 'rows', 'row_count', 'truncated'],
  ),
  annotations: READ_ONLY,
  async execute(ctx, input) {
    return withReadOnlyTransaction(ctx, async (client) => {
      const result = await fetchRows(client, input.sql, input.params ?? [], ctx.limits.maxRows);
      const oids = [...new Set(result.fields.map((f) => f.dataTypeID))];
      const typeNames = new Map<number, string>();
      if (oids.length > 0) {
        const types = await client.query<{ oid: string; name: string }>('SELECT oid::text AS oid, format_type(oid, NULL) AS name FROM pg_type WHERE oid = ANY($1::oid[])', [oids]);
        for (const t of types.rows) typeNames.set(Number(t.oid), t.name);
      }
      const names = uniqueNames(result.fields.map((f) => f.name));
      const rows: Array<Record<string, unknown>> = [];
      let truncated = result.more;
      // The row cap alone does not bound the size: a few huge text values can be megabytes.
      let bytes = 0;
      for (const values of result.rows) {
        const row = Object.fromEntries(names.map((name, i) => [name, cell(values[i])]));
        bytes += Buffer.byteLength(JSON.stringify(row));
        if (bytes > ctx.limits.maxResponseBytes) {
          truncated = true;
          break;
        }
        rows.push(row);
      }
      return {
        columns: names.map((name, i) => ({ name, type: typeNames.get(result.fields[i]!.dataTypeID) ?? 'unknown' })),
        rows,
        row_count: rows.length,
        truncated,
      };
    });
  },
};

export const explainQuery: ToolDefinition<{ sql: string; params?: Param[]; format?: 'text' | 'json' }> = {
  name: 'explain_query',
  description:
    'Show PostgreSQL\'s plan for one SQL statement (EXPLAIN, without ANALYZE: the statement is not executed). Use it to check whether a query will use indexes before running it.',
  input_schema: inputSchema({ sql: sqlParam, params: paramsParam, format: str('text (default) or json', { enum: ['text', 'json'] }) }, ['sql']),
  output_schema: objectSchema({ plan: { type: ['string', 'array'], description: 'The plan: text lines joined, or EXPLAIN\'s JSON document' } }, ['plan']),
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const json = input.format === 'json';
    return withReadOnlyTransaction(ctx, async (client) => {
      // The options list in parentheses makes `ANALYZE ...` in the input a syntax error rather than EXPLAIN ANALYZE.
      const result = await fetchRows(client, `EXPLAIN (FORMAT ${json ? 'JSON' : 'TEXT'}) ${input.sql}`, input.params ?? [], 10_000);
      if (json) return { plan: result.rows[0]?.[0] as unknown[] };
      return { plan: result.rows.map((r) => String(r[0])).join('\n') };
    });
  },
};
