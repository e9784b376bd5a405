// Default jest globalSetup (jest.base.js): creates the package's own test database (see isolate() in
// jest.base.js) when the package can reach PostgreSQL, so its tests may connect to DATABASE_URL directly.
// Plain JavaScript with the package's own `pg`: @patchbay/db's ensureDatabase may not be built yet.
module.exports = async function globalSetup(_globalConfig, projectConfig) {
  let pg;
  try {
    pg = require(require.resolve('pg', { paths: [projectConfig.rootDir] }));
  } catch {
    return; // no PostgreSQL client: the package's tests use no database
  }
  const url = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/patchbay_test');
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } catch (err) {
    if (err.code !== '42P04') throw err; // it exists already
  } finally {
    await admin.end();
  }
};
