export * from './app.js';
export * from './context.js';
export * from './factories.js';
export * from './receiver.js';
export * from './stores.js';
export * from './browser.js';
export * from './process.js';
export * from './form-client.js';
