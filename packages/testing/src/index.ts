// The main entry: what most test files need. Browsers ('@ferry/testing/browser') and the fake
// GitHub ('@ferry/testing/fake-github') have entries of their own, loaded only by the files
// that use them (playwright-core, ajv and GraphQL cost CPU in every test worker that loads them).
export * from './app.js';
export * from './context.js';
export * from './factories.js';
export * from './receiver.js';
export * from './stores.js';
export * from './process.js';
export * from './drain.js';
export * from './form-client.js';
export * from './migrations.js';
export * from './images.js';
export * from './sentry-clients.js';
