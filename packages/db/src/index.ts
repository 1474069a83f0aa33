export * from './client.js';
export * from './migrate.js';
export * from './schema.js';
export { migrations } from './migrations/index.js';
export * from './listen.js';
export * from './unique-violation.js';
