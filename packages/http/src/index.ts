export * from './app.js';
export * from './errors.js';
export * from './health.js';
export * from './metrics.js';
export * from './request-id.js';
export * from './validation.js';
export * from './runtime.js';
export * from './ssrf.js';
