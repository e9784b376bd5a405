module.exports = require('../../jest.base.js')(__dirname, {
  globalSetup: '<rootDir>/test/global-setup.ts',
  // Several tests make organizations and keys with the real admin CLI (a process each): seconds apiece on a loaded machine.
  testTimeout: 90_000,
});
