export * from './config.js';
export * from './errors.js';
export * from './ids.js';
export * from './logger.js';
export * from './secrets.js';
export * from './text.js';
export * from './group-commit.js';
export * from './in-order.js';
