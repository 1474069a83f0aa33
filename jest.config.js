/**
 * One jest run over every package and service. Native ESM (node --experimental-vm-modules) with
 * @swc/jest; each test file isolates itself (own database cloned from a template, own Redis prefix),
 * so files run in parallel.
 * @type {import('jest').Config}
 */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
        module: { type: 'es6' },
      },
    ],
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: ['<rootDir>/{packages,services,bench}/*/test/**/*.test.ts'],
  globalSetup: '<rootDir>/jest.global-setup.mjs',
  globalTeardown: '<rootDir>/jest.global-teardown.mjs',
  testTimeout: 30_000,
  maxWorkers: 3,
};
