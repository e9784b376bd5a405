import { READ_ONLY, arr, bool, inputSchema, objectSchema, str } from '../../core/schema';
import { ToolError } from '../../core/tool-error';
import type { ToolDefinition } from '../../core/types';
import { withReadOnlyTransaction } from './client';

const SYSTEM_SCHEMAS = `n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp\\_%'`;
const RELKIND_NAMES = `CASE c.relkind WHEN 'r' THEN 'table' WHEN 'p' THEN 'partitioned table' WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view' WHEN 'f' THEN 'foreign table' END`;

export const listTables: ToolDefinition<{ schema?: string }> = {
  name: 'list_tables',
  description: 'List the schemas and the tables, views and materialized views of the connected PostgreSQL database (system schemas left out), with estimated row counts and comments.',
  input_schema: inputSchema({ schema: str('Only this schema', { minLength: 1, maxLength: 63 }) }),
  output_schema: objectSchema(
    {
      schemas: arr(str('Schema name'), 'Non-system schemas'),
      tables: arr(
        objectSchema(
          {
            schema: str('Schema'),
            name: str('Table name'),
            type: str('table, partitioned table, view, materialized view or foreign table'),
            estimated_rows: { type: ['number', 'null'], description: 'Planner estimate; null if never analyzed' },
            comment: { type: ['string', 'null'] },
          },
          ['schema', 'name', 'type'],
        ),
        'Tables and views',
      ),
      truncated: bool('True when there were more tables than the row limit'),
    },
    ['schemas', 'tables', 'truncated'],
  ),
  annotations: READ_ONLY,
  async execute(ctx, input) {
    return withReadOnlyTransaction(ctx, async (client) => {
      const schemas = await client.query<{ name: string }>(`SELECT n.nspname AS name FROM pg_namespace n WHERE ${SYSTEM_SCHEMAS} ORDER BY 1`);
      const tables = await client.query<{ schema: string; name: string; type: string; estimated_rows: number | null; comment: string | null }>(
        `SELECT n.nspname AS schema, c.relname AS name, ${RELKIND_NAMES} AS type,
                CASE WHEN c.reltuples < 0 THEN NULL ELSE c.reltuples::float8 END AS estimated_rows,
                obj_description(c.oid, 'pg_class') AS comment
           FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND ${SYSTEM_SCHEMAS} AND ($1::text IS NULL OR n.nspname = $1)
          ORDER BY 1, 2
          LIMIT $2`,
        [input.schema ?? null, ctx.limits.maxRows + 1],
      );
      return {
        schemas: schemas.rows.map((r) => r.name),
        tables: tables.rows.slice(0, ctx.limits.maxRows),
        truncated: tables.rows.length > ctx.limits.maxRows,
      };
    });
  },
};

export const describeTable: ToolDefinition<{ table: string; schema?: string }> = {
  name: 'describe_table',
  description: 'Describe a PostgreSQL table or view: its columns (type, nullability, default, comment), primary key and foreign keys. Names are matched exactly as stored (usually lower case).',
  input_schema: inputSchema(
    {
      table: str('Table or view name', { minLength: 1, maxLength: 63 }),
      schema: str('Schema (default public)', { minLength: 1, maxLength: 63, default: 'public' }),
    },
    ['table'],
  ),
  output_schema: objectSchema(
    {
      schema: str('Schema'),
      name: str('Table name'),
      type: str('table, partitioned table, view, materialized view or foreign table'),
      comment: { type: ['string', 'null'] },
      columns: arr(
        objectSchema(
          { name: str('Column name'), type: str('SQL type, e.g. character varying(80)'), nullable: bool('Whether NULL is allowed'), default: { type: ['string', 'null'] }, comment: { type: ['string', 'null'] } },
          ['name', 'type', 'nullable'],
        ),
        'Columns in order',
      ),
      primary_key: arr(str('Column'), 'Primary key columns in order; empty if none'),
      foreign_keys: arr(objectSchema({ name: str('Constraint name'), definition: str('e.g. FOREIGN KEY (customer_id) REFERENCES customers(id)') }, ['name', 'definition']), 'Foreign keys'),
    },
    ['schema', 'name', 'type', 'columns', 'primary_key', 'foreign_keys'],
  ),
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const schema = input.schema ?? 'public';
    return withReadOnlyTransaction(ctx, async (client) => {
      const rel = await client.query<{ oid: string; type: string; comment: string | null }>(
        `SELECT c.oid::text AS oid, ${RELKIND_NAMES} AS type, obj_description(c.oid, 'pg_class') AS comment
           FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')`,
        [schema, input.table],
      );
      const found = rel.rows[0];
      if (!found) throw new ToolError('not_found', `No table or view "${schema}"."${input.table}" in this database; list_tables shows the names as stored.`);
      const columns = await client.query<{ name: string; type: string; nullable: boolean; default: string | null; comment: string | null }>(
        `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, NOT a.attnotnull AS nullable,
                pg_get_expr(d.adbin, d.adrelid) AS default, col_description(a.attrelid, a.attnum) AS comment
           FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
          WHERE a.attrelid = $1::oid AND a.attnum > 0 AND NOT a.attisdropped
          ORDER BY a.attnum`,
        [found.oid],
      );
      const primaryKey = await client.query<{ name: string }>(
        `SELECT a.attname AS name
           FROM pg_index i CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
           JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
          WHERE i.indrelid = $1::oid AND i.indisprimary
          ORDER BY k.ord`,
        [found.oid],
      );
      const foreignKeys = await client.query<{ name: string; definition: string }>(
        `SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conrelid = $1::oid AND contype = 'f' ORDER BY conname`,
        [found.oid],
      );
      return {
        schema,
        name: input.table,
        type: found.type,
        comment: found.comment,
        columns: columns.rows,
        primary_key: primaryKey.rows.map((r) => r.name),
        foreign_keys: foreignKeys.rows,
      };
    });
  },
};
