#!/usr/bin/env node
/*
 * The `build` of every Patchbay app and package: emits the JavaScript of src/ into dist/ with swc
 * (no type check), so a fresh clone starts in seconds. Types are checked elsewhere: `pnpm typecheck`
 * (tsc --noEmit, which CI runs for every package) and `build:types` (the .d.ts files that other
 * packages' type checks and lint read).
 *
 * A package adopts it with two scripts (see scripts/build/README.md):
 *   "build": "node ../../scripts/build/build-package.js",
 *   "build:types": "tsc -p tsconfig.build.json --emitDeclarationOnly"
 *
 * What it does, in the package's own folder:
 *   - src/**\/*.ts (not *.test.ts, not *.d.ts) to dist/**\/*.js and .js.map, CommonJS, ES2022, with
 *     the legacy decorators and decorator metadata tsoa needs: the settings tsconfig.base.json gives
 *     tsc, so the output behaves as tsc's did (jest runs the same swc settings, see jest.base.js);
 *   - every other file under src/ (the generated swagger.json, for example) copied as is;
 *   - JavaScript left in dist/ by a source that no longer exists deleted (declarations are kept:
 *     they belong to build:types).
 * Plain JavaScript on purpose: the tool that builds everything must not need a build itself.
 */
'use strict';

const { readFileSync } = require('node:fs');
const { mkdir, readdir, rm, copyFile, writeFile } = require('node:fs/promises');
const path = require('node:path');
const swc = require('@swc/core');

/** The swc settings equivalent to tsconfig.base.json's emit; exported so tests and jest can share them. */
const SWC_OPTIONS = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: true },
    target: 'es2022',
    // Helpers inline: the output needs no @swc/helpers at run time.
    externalHelpers: false,
    keepClassNames: true,
  },
  module: { type: 'commonjs', strict: false, noInterop: false },
  sourceMaps: true,
  inlineSourcesContent: false,
  swcrc: false,
  configFile: false,
};

const isSource = (file) => file.endsWith('.ts') && !file.endsWith('.d.ts') && !/\.test\.ts$/.test(file);
const isTest = (file) => /\.test\.ts$/.test(file);

/** A tsconfig glob (`src/**\/*.test.ts`, `src/generated/**`) as a regular expression over package-relative paths. */
function globToRegExp(glob) {
  let pattern = '';
  for (let i = 0; i < glob.length; i += 1) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      // `**/` matches any number of folders, a trailing `**` anything below.
      pattern += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += glob[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') pattern += '[^/]*';
    else if (c === '?') pattern += '[^/]';
    else pattern += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${pattern}$`);
}

/** The `exclude` globs of the package's tsconfig.build.json (folders left out of its build, as tsc left them out). */
function excludedBy(packageDir) {
  let config;
  try {
    config = JSON.parse(readFileSync(path.join(packageDir, 'tsconfig.build.json'), 'utf8'));
  } catch {
    return () => false;
  }
  const patterns = (Array.isArray(config.exclude) ? config.exclude : []).map((glob) => globToRegExp(glob.replace(/^\.\//, '')));
  return (relative) => patterns.some((re) => re.test(relative.split(path.sep).join('/')));
}

async function walk(dir, base = dir) {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if (err.code === 'ENOENT') return [];
    throw err;
  }
  const files = [];
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await walk(full, base)));
    else if (entry.isFile()) files.push(path.relative(base, full));
  }
  return files;
}

async function transpile(srcDir, outDir, relative) {
  const source = path.join(srcDir, relative);
  const target = path.join(outDir, relative.replace(/\.ts$/, '.js'));
  const output = await swc.transformFile(source, {
    ...SWC_OPTIONS,
    filename: source,
    // Paths in the map are relative to the map, as tsc writes them.
    sourceFileName: path.relative(path.dirname(target), source),
    outputPath: target,
  });
  await mkdir(path.dirname(target), { recursive: true });
  const mapName = `${path.basename(target)}.map`;
  await writeFile(target, `${output.code}\n//# sourceMappingURL=${mapName}\n`);
  if (output.map) await writeFile(`${target}.map`, output.map);
  return target;
}

async function buildPackage(packageDir, { srcDir = 'src', outDir = 'dist' } = {}) {
  const src = path.resolve(packageDir, srcDir);
  const out = path.resolve(packageDir, outDir);
  const excluded = excludedBy(packageDir);
  const files = (await walk(src)).filter((relative) => !excluded(path.join(srcDir, relative)));
  const written = new Set();
  await Promise.all(
    files.map(async (relative) => {
      if (isSource(relative)) {
        const target = await transpile(src, out, relative);
        written.add(target);
        written.add(`${target}.map`);
      } else if (!isTest(relative) && !relative.endsWith('.d.ts')) {
        const target = path.join(out, relative);
        await mkdir(path.dirname(target), { recursive: true });
        await copyFile(path.join(src, relative), target);
        written.add(target);
      }
    }),
  );
  // A renamed or deleted source must not leave its old module importable.
  for (const relative of await walk(out)) {
    const full = path.join(out, relative);
    if (/\.js(\.map)?$/.test(relative) && !written.has(full)) await rm(full);
  }
  return written.size;
}

module.exports = { SWC_OPTIONS, buildPackage };

if (require.main === module) {
  const started = process.hrtime.bigint();
  buildPackage(process.cwd()).then(
    (count) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      process.stdout.write(`built ${count} file(s) into dist/ with swc in ${Math.round(ms)} ms (types: pnpm typecheck)\n`);
    },
    (err) => {
      process.stderr.write(`build failed: ${err && err.message ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
