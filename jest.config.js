/**
 * One jest run over every package and service. Native ESM (node --experimental-vm-modules) with
 * @swc/jest; each test file isolates itself (own database cloned from a template, own Redis prefix),
 * so files run in parallel.
 * @type {import('jest').Config}
 */
const ESM_ONLY = '(htmlparser2|domhandler|domutils|domelementtype|dom-serializer|entities)';

export default {
  testEnvironment: 'node',
  // Jest 30's default 'soft' cleanup wraps globals a file left behind in accessors whose setter
  // recurses forever on the next write (jestjs/jest#16044, #16443; the fix #16210 is unmerged at
  // 30.5.2). The Sentry SDK keeps its carrier on the real global object, so a later file in the
  // same worker died with "Maximum call stack size exceeded". Jest 29 had no such cleanup.
  testEnvironmentOptions: { globalsCleanup: 'off' },
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
  // Each file's CPU, for infra/test.mjs's report (does nothing unless it asks).
  setupFilesAfterEnv: ['<rootDir>/infra/jest-file-cpu.mjs'],
  globalSetup: '<rootDir>/jest.global-setup.mjs',
  globalTeardown: '<rootDir>/jest.global-teardown.mjs',
  testSequencer: '<rootDir>/infra/test-sequencer.mjs',
  testTimeout: 30_000,
  maxWorkers: 3,
};
