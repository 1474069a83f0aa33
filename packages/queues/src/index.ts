export * from './catalog.js';
export * from './connection.js';
export * from './events.js';
export * from './outbox.js';
export * from './producer.js';
export * from './worker.js';
export * from './relay-process.js';
export * from './jobs.js';
