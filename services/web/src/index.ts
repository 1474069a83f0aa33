export * from './app.js';
export type { WebDeps } from './deps.js';
