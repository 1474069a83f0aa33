export { createWebApp, opsGauges, startOpsSampling, webMounts } from './app.js';
export type { WebApp } from './app.js';
export { loadWebConfig, loadWebSettings } from './config.js';
export type { WebConfig, WebSettings } from './config.js';
export { webDeps, type PageCard, type PageCards, type WebDeps, type WebResources } from './deps.js';
export { renderErrorPage } from './shared/error-page.js';
export { SOCKET_EVENTS, type SocketEvent } from './shared/socket-events.js';
// The one message renderer, for services/all's checks of what other services store as markdown.
export { renderMarkdown } from './shared/markdown.js';
export { webManifest } from './manifest.js';
export { MACHINE_PATHS, ferryOpenApiDocument } from './features/api-docs/api.js';
