import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import type { ErrorCapturingSqlMigrationAwareDriverAdapterFactory, SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type { SchemaEngine } from '@prisma/schema-engine-wasm';

type SchemaEngineClass = typeof SchemaEngine;

/** The slice of the WebAssembly global we use (its types live in lib.dom, which a Node package does not load). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: Record<string, object>) => { exports: Record<string, unknown> };
}
const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

let runtime: Promise<SchemaEngineClass> | undefined;

/**
 * Instantiates Prisma's schema engine compiled to WebAssembly (the npm build of the same engine the
 * CLI downloads natively, which cannot be downloaded here). The package's entry imports the `.wasm`
 * file as a module, which only bundlers understand, so we instantiate it ourselves against its JS glue.
 * Once per process: wasm-bindgen keeps module-level state and breaks when initialised twice.
 * The glue is an ES module, which `require` loads on Node 20.19+.
 */
function loadRuntime(): Promise<SchemaEngineClass> {
  runtime ??= (async () => {
    const glue = await import('@prisma/schema-engine-wasm/schema_engine_bg');
    const wasmFile = path.join(path.dirname(require.resolve('@prisma/schema-engine-wasm/schema_engine_bg')), 'schema_engine_bg.wasm');
    const module = new wasmApi.Module(await readFile(wasmFile));
    const instance = new wasmApi.Instance(module, { './schema_engine_bg.js': glue });
    glue.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
    return glue.SchemaEngine;
  })();
  return runtime;
}

export interface OpenSchemaEngine {
  engine: SchemaEngine;
  /** Turns whatever the engine rejected with into an Error whose message a developer can act on. */
  explain(error: unknown): Error;
  close(): void;
}

/**
 * Starts a schema engine that reaches its databases only through the given driver adapter factory
 * (its main connection through `connect()`, its shadow database through `connectToShadowDb()`).
 * The engine leaves timers running for seconds after its work is done: processes using it exit explicitly.
 */
export async function openSchemaEngine(factory: SqlMigrationAwareDriverAdapterFactory): Promise<OpenSchemaEngine> {
  const SchemaEngineClass = await loadRuntime();
  const bound = bindMigrationAwareSqlAdapterFactory(factory);
  let engine: SchemaEngine;
  try {
    // The engine's log callback receives JSON tracing lines ("Starting schema-engine-wasm"...) nobody needs.
    engine = await SchemaEngineClass.new({ datamodels: undefined }, () => undefined, bound);
  } catch (error) {
    throw explainEngineError(error, bound);
  }
  return {
    engine,
    explain: (error) => explainEngineError(error, bound),
    close: () => engine.free(),
  };
}

/**
 * Errors a driver adapter threw cross the engine as an id in the adapter's error registry; the
 * engine's own errors carry a Prisma error code (P1012 for an invalid schema...) or are plain Errors.
 */
function explainEngineError(error: unknown, bound: ErrorCapturingSqlMigrationAwareDriverAdapterFactory): Error {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    // The engine appends a Rust span trace ("   0: schema_engine_wasm::...") that only helps Prisma's developers.
    const message = error.message
      .replace(/\n\s+0: schema_engine[\s\S]*$/, '')
      .replace(/external connector error\n/g, '')
      .replace(/External error id#(\d+)/g, (whole, id: string) => {
        const original = bound.errorRegistry.consumeError(Number(id))?.error;
        return original instanceof Error ? original.message : whole;
      })
      .trim();
    const explained = new Error(typeof code === 'string' ? `${code}: ${message}` : message);
    if (typeof code === 'string') (explained as Error & { code?: string }).code = code;
    return explained;
  }
  return new Error(String(error));
}
