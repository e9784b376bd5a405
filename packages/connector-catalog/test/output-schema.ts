import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { findTool, getBuiltinConnector } from '../src/catalog';

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);

/** Fails the test when a tool's output does not match the output_schema the catalog advertises for it. */
export function expectOutputMatchesSchema(slug: string, toolName: string, output: unknown): void {
  const tool = findTool(getBuiltinConnector(slug)!, toolName)!;
  const validate = ajv.compile(tool.output_schema);
  const ok = validate(output);
  if (!ok) throw new Error(`${slug}.${toolName} output does not match its output_schema: ${ajv.errorsText(validate.errors)}`);
}
