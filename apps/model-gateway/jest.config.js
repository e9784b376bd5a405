module.exports = require('../../jest.base.js')(__dirname, {
  globalSetup: '<rootDir>/test/global-setup.ts',
});
