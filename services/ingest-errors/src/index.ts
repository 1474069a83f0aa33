export * from './app.js';
export * from './config.js';
export * from './deps.js';
export * from './fingerprint.js';
export * from './jobs/write-errors.js';
export * from './report.js';
export * from './retention.js';
export * from './worker.js';
