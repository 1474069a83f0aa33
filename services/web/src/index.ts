export * from './app.js';
export * from './config.js';
export { webDeps, type PageCard, type PageCards, type WebDeps, type WebResources } from './deps.js';
export { renderErrorPage } from './error-page.js';
export { SOCKET_EVENTS, type SocketEvent } from './socket-events.js';
// The one message renderer, for services/all's checks of what other services store as markdown.
export { renderMarkdown } from './markdown.js';
export * from './manifest.js';
