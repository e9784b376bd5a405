import { useState } from 'react';
import type { JsonSchema } from '../../api/mcp';

type Json = unknown;

function typeOf(schema: JsonSchema): string | undefined {
  const t = schema.type;
  if (Array.isArray(t)) return t.find((x) => x !== 'null');
  if (t) return t;
  if (schema.properties) return 'object';
  if (schema.enum) return 'string';
  return undefined;
}

/** The object with `value` set at `key` (undefined removes it), leaving the rest as it was. */
function withKey(object: Json, key: string, value: Json): Record<string, Json> {
  const copy = { ...((object && typeof object === 'object' && !Array.isArray(object) ? object : {}) as Record<string, Json>) };
  if (value === undefined) delete copy[key];
  else copy[key] = value;
  return copy;
}

interface FieldProps {
  schema: JsonSchema;
  value: Json;
  onChange: (value: Json) => void;
  /** The argument's path, e.g. input.owner: the control's id and what its label says. */
  path: string;
  name: string;
  required: boolean;
}

/**
 * A form for a tool's input schema: objects as fieldsets, strings, numbers, integers, booleans and
 * enums as their controls, anything else (arrays, unions) as JSON in a text box. What it builds is the
 * tools/call arguments object; the runtime validates it against the same schema.
 */
export function SchemaForm({ schema, value, onChange }: { schema: JsonSchema; value: Json; onChange: (value: Json) => void }) {
  if (typeOf(schema) !== 'object' || !schema.properties) {
    return <JsonField schema={schema} value={value} onChange={onChange} path="arguments" name="Arguments" required />;
  }
  return <ObjectFields schema={schema} value={value} onChange={onChange} path="arguments" />;
}

function ObjectFields({ schema, value, onChange, path }: { schema: JsonSchema; value: Json; onChange: (value: Json) => void; path: string }) {
  const record = (value && typeof value === 'object' ? value : {}) as Record<string, Json>;
  return (
    <>
      {Object.entries(schema.properties ?? {}).map(([key, child]) => (
        <Field
          key={key}
          schema={child}
          value={record[key]}
          onChange={(v) => onChange(withKey(value, key, v))}
          path={`${path}.${key}`}
          name={key}
          required={schema.required?.includes(key) ?? false}
        />
      ))}
    </>
  );
}

function Field(props: FieldProps) {
  const { schema, value, onChange, path, name, required } = props;
  const type = typeOf(schema);
  const id = `field-${path.replace(/[^a-zA-Z0-9_-]/g, '-')}`;
  const label = `${schema.title ?? name}${required ? ' (required)' : ''}`;
  const hint = schema.description ? <span className="muted hint">{schema.description}</span> : null;
  if (type === 'object' && schema.properties) {
    return (
      <fieldset>
        <legend>{label}</legend>
        {hint}
        <ObjectFields schema={schema} value={value} onChange={onChange} path={path} />
      </fieldset>
    );
  }
  if (schema.enum) {
    return (
      <label htmlFor={id}>
        {label}
        {hint}
        <select id={id} value={value === undefined ? '' : JSON.stringify(value)} onChange={(e) => onChange(e.target.value === '' ? undefined : JSON.parse(e.target.value))}>
          <option value="">(not set)</option>
          {schema.enum.map((option) => (
            <option key={JSON.stringify(option)} value={JSON.stringify(option)}>
              {String(option)}
            </option>
          ))}
        </select>
      </label>
    );
  }
  if (type === 'boolean') {
    return (
      <label className="check" htmlFor={id}>
        <input id={id} type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} />
        {label}
        {hint}
      </label>
    );
  }
  if (type === 'string' || type === 'integer' || type === 'number') {
    const numeric = type !== 'string';
    return (
      <label htmlFor={id}>
        {label}
        {hint}
        <input
          id={id}
          type={numeric ? 'number' : 'text'}
          step={type === 'integer' ? 1 : 'any'}
          value={value === undefined || value === null ? '' : String(value)}
          placeholder={schema.default !== undefined ? `default ${String(schema.default)}` : undefined}
          onChange={(e) => {
            const text = e.target.value;
            if (text === '') onChange(undefined);
            else onChange(numeric ? Number(text) : text);
          }}
        />
      </label>
    );
  }
  return <JsonField {...props} />;
}

/** A value the form has no control for (an array, a union, free JSON), typed as JSON. */
function JsonField({ schema, value, onChange, path, name, required }: FieldProps) {
  const [text, setText] = useState(value === undefined ? '' : JSON.stringify(value, null, 2));
  const [problem, setProblem] = useState<string | null>(null);
  const id = `field-${path.replace(/[^a-zA-Z0-9_-]/g, '-')}`;
  return (
    <label htmlFor={id}>
      {`${schema.title ?? name} (JSON${typeOf(schema) ? `, ${typeOf(schema)}` : ''})${required ? ' (required)' : ''}`}
      {schema.description && <span className="muted hint">{schema.description}</span>}
      <textarea
        id={id}
        rows={3}
        value={text}
        aria-invalid={problem ? true : undefined}
        onChange={(e) => {
          setText(e.target.value);
          if (e.target.value.trim() === '') {
            setProblem(null);
            onChange(undefined);
            return;
          }
          try {
            onChange(JSON.parse(e.target.value));
            setProblem(null);
          } catch {
            setProblem('Not valid JSON yet.');
          }
        }}
      />
      {problem && <span className="error">{problem}</span>}
    </label>
  );
}
