// Shared jest settings: @swc/jest for speed, with the decorator options tsoa controllers need.
const fs = require('node:fs');
const path = require('node:path');

const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/patchbay_test';

/**
 * Each package's tests get a PostgreSQL database and a BullMQ prefix of their own, named after the
 * package, so turbo runs several packages' tests at once (root `pnpm test`) without one package's
 * workers taking another's jobs or two packages migrating one schema at the same moment:
 *   DATABASE_URL   <the database of DATABASE_URL, default patchbay_test>_<package>, e.g. patchbay_test_mcp_runtime
 *   QUEUE_PREFIX   <QUEUE_PREFIX, default bull>-<package>
 * Redis keeps its database (REDIS_URL): the tests' other keys carry random organization ids or the
 * process id. Set here, in the jest process, before globalSetup and the workers start, so the
 * services tests start as child processes inherit it too. The values it started from are kept in
 * PATCHBAY_TEST_BASE_*: loading the config twice does not add the suffix twice.
 * PATCHBAY_TEST_SHARED=1 turns it off (everything on DATABASE_URL and QUEUE_PREFIX as given).
 */
function isolate(dir) {
  if (process.env.PATCHBAY_TEST_SHARED === '1') return null;
  const name = require(path.join(dir, 'package.json')).name.replace(/^@[^/]+\//, '');
  const slug = name.replace(/[^A-Za-z0-9]+/g, '_').toLowerCase();
  process.env.PATCHBAY_TEST_BASE_DATABASE_URL ??= process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
  process.env.PATCHBAY_TEST_BASE_QUEUE_PREFIX ??= process.env.QUEUE_PREFIX ?? 'bull';
  const url = new URL(process.env.PATCHBAY_TEST_BASE_DATABASE_URL);
  url.pathname = `/${decodeURIComponent(url.pathname.slice(1)) || 'patchbay_test'}_${slug}`;
  process.env.DATABASE_URL = url.toString();
  process.env.QUEUE_PREFIX = `${process.env.PATCHBAY_TEST_BASE_QUEUE_PREFIX}-${slug.replace(/_/g, '-')}`;
  return slug;
}

/**
 * The current Vercel AI SDK (ai 7, @ai-sdk/* 4 and their @workflow/serde) is published only as ES
 * modules, and @ai-sdk/provider-utils 5 imports zod 4's locale files by path (zod's `./v4/locales/*`
 * export has no CommonJS file). Jest can require() an ES module from a CommonJS test only on Node 24.9
 * and later; here their `.js` files are compiled to CommonJS like our TypeScript. Only the pnpm store
 * folders of those names whose package is `"type": "module"` count: ai 6 and @ai-sdk/* 3 ship CommonJS
 * and, like the rest of node_modules, run as published; a require() reaches zod's `.cjs` files but for
 * those locales. openid-client 6 (single sign-on in access-keys-and-audit) and its oauth4webapi and jose
 * are ES modules only too.
 */
const ESM_ONLY_NAMES = /^(?:ai|zod|@ai-sdk\+[^@]+|@workflow\+[^@]+|openid-client|oauth4webapi|jose)@/;

function esmOnlyStoreFolders() {
  const store = path.join(__dirname, 'node_modules', '.pnpm');
  if (!fs.existsSync(store)) return [];
  return fs.readdirSync(store).filter((folder) => {
    if (!ESM_ONLY_NAMES.test(folder)) return false;
    const name = folder.slice(0, folder.indexOf('@', 1)).replace('+', '/');
    const manifest = path.join(store, folder, 'node_modules', name, 'package.json');
    return fs.existsSync(manifest) && JSON.parse(fs.readFileSync(manifest, 'utf8')).type === 'module';
  });
}

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// With none installed this is `.pnpm/(?:)/`, which no path has.
const ESM_ONLY_FILES = `/node_modules/\\.pnpm/(?:${esmOnlyStoreFolders().map(escapeRegExp).join('|')})/.+\\.js$`;

module.exports = function jestConfig(dir, overrides = {}) {
  isolate(dir);
  return {
    rootDir: dir,
    testEnvironment: 'node',
    testMatch: ['<rootDir>/src/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
    transform: {
      '^.+\\.ts$': [
        require.resolve('@swc/jest'),
        {
          jsc: {
            parser: { syntax: 'typescript', decorators: true },
            transform: { legacyDecorator: true, decoratorMetadata: true },
            target: 'es2022',
          },
          module: { type: 'commonjs' },
          sourceMaps: 'inline',
        },
      ],
      [ESM_ONLY_FILES]: [require.resolve('@swc/jest'), { jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
    },
    // Everything in node_modules runs as published, except the ES-module-only packages above.
    transformIgnorePatterns: [`^(?!.*${ESM_ONLY_FILES}).*/node_modules/`],
    moduleFileExtensions: ['ts', 'js', 'json'],
    // Root `pnpm test` runs two packages at a time on machines with few cores: a test may wait for CPU.
    testTimeout: 60000,
    // Creates the package's database when it uses PostgreSQL; an app's own globalSetup does it too.
    globalSetup: path.join(__dirname, 'jest.global-setup.js'),
    ...overrides,
  };
};
module.exports.root = path.resolve(__dirname);
module.exports.isolate = isolate;
