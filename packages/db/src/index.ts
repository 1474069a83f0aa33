export * from './client.js';
export * from './migrate.js';
export * from './schema.js';
export { migrations } from './migrations/index.js';
export { WRITER_COUNTS_SETTING } from './migrations/2026_11_27_0200_writer_counts_occurrences.js';
export * from './listen.js';
export * from './unique-violation.js';
