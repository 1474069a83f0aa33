export * from './agent-events.js';
export * from './app.js';
export * from './config.js';
export * from './deps.js';
export * from './jobs/index.js';
export * from './streams.js';
export * from './work-log.js';
export * from './manifest.js';
