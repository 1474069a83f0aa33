export * from './app.js';
export * from './config.js';
export * from './deps.js';
export * from './flow.js';
export * from './issue-body.js';
export * from './jobs/index.js';
export * from './manifest.js';
