// Shared jest settings: @swc/jest for speed, with the decorator options tsoa controllers need.
const path = require('node:path');

module.exports = function jestConfig(dir, overrides = {}) {
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
    },
    moduleFileExtensions: ['ts', 'js', 'json'],
    testTimeout: 30000,
    ...overrides,
  };
};
module.exports.root = path.resolve(__dirname);
