/**
 * One jest run over every package and service. Native ESM (node --experimental-vm-modules) with
 * @swc/jest; each test file isolates itself (own database cloned from a template, own Redis prefix),
 * so files run in parallel.
 * @type {import('jest').Config}
 */
const ESM_ONLY = '(htmlparser2|domhandler|domutils|domelementtype|dom-serializer|entities)';

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
    // sanitize-html (CommonJS) requires htmlparser2 and its family, which ship ESM only. Node
    // loads them natively (require(esm)); Jest cannot before Node 24.9, so compile them to CJS.
    [`/node_modules/\\.pnpm/${ESM_ONLY}@[^/]+/.+\\.js$`]: [
      '@swc/jest',
      { jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: [`^(?!.*/node_modules/\\.pnpm/${ESM_ONLY}@).*/node_modules/`],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: ['<rootDir>/{packages,services,bench}/*/test/**/*.test.ts'],
  globalSetup: '<rootDir>/jest.global-setup.mjs',
  globalTeardown: '<rootDir>/jest.global-teardown.mjs',
  testSequencer: '<rootDir>/infra/test-sequencer.mjs',
  testTimeout: 30_000,
  maxWorkers: 3,
};
