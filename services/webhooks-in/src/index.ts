export * from './accept.js';
export * from './app.js';
export * from './config.js';
export * from './deps.js';
export * from './key-cache.js';
export * from './post-writer.js';
export * from './manifest.js';
