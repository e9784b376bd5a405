// One file at a time: every harness shares the database's outbox and the installation's queue prefix,
// and each points its sync worker at its own platform fakes.
module.exports = require('../../jest.base.js')(__dirname, {
  globalSetup: '<rootDir>/test/global-setup.ts',
  maxWorkers: 1,
  testTimeout: 180000,
});
