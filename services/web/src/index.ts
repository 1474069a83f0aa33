export * from './app.js';
export type { WebDeps } from './deps.js';
export { renderErrorPage } from './error-page.js';
