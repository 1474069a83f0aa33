import { apiReferenceRoutes } from './features/api-docs/routes.js';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Express } from 'express';
import {
  createMetrics,
  createServiceApp,
  registerOpsGauges,
  staticAssetRoutes,
  type Metrics,
  type ServiceMount,
} from '@ferry/http';
import { deploymentHealth } from './features/ops/figures.js';
import { startOpsSampler, type OpsSampler } from './features/ops/history.js';
import type { WebDeps } from './deps.js';
import { renderErrorPage } from './shared/error-page.js';
import { createRealtime, type Realtime } from './shared/realtime.js';
import { widgetRoutes } from './features/widget/api.js';
import { agentDownloadRoutes } from './features/agents/download-routes.js';
import { apiRoutes, pageRoutes } from './routes.js';
import { pageSecurityHeaders } from './shared/security-headers.js';
import { sessionMiddleware } from './shared/session.js';

const PUBLIC_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'public');

export interface WebApp {
  app: Express;
  realtime: Realtime;
}

/**
 * The web service's routes in mount order, for a shared app (`pnpm start`) or its own: /widget/*
 * (public, cross-origin: before the pages), /api/v1 (tokens), then the pages (sessions), whose
 * socket.io is `realtime`.
 */
export function webMounts(deps: WebDeps): { mounts: ServiceMount[]; realtime: Realtime } {
  const session = sessionMiddleware(deps);
  const github = deps.settings.github;
  const headers = pageSecurityHeaders({
    https: deps.config.PUBLIC_URL.startsWith('https://'),
    formRedirectOrigins: github.configured ? [new URL(github.app.webUrl).origin] : [],
  });
  const pages = express.Router();
  pages.use(headers);
  // Browsers ask for /favicon.ico whatever the page links: answer with the one icon we have.
  pages.get('/favicon.ico', (_req, res) => res.redirect(301, '/assets/favicon.svg'));
  // Assets answered as they should get no request line (staticAssetRoutes); a failed one does.
  pages.use(
    '/assets',
    staticAssetRoutes,
    express.static(PUBLIC_DIR, { maxAge: '1h', index: false }),
  );
  pages.use(session);
  const realtime = createRealtime(deps, session);
  pages.use(pageRoutes(deps, realtime));
  const api = express.Router();
  api.use(headers);
  api.use(apiRoutes(deps));
  return {
    mounts: [
      { router: widgetRoutes(deps) },
      // The local agent's installer and tarball: public, no session.
      { path: '/agent', router: agentDownloadRoutes(deps) },
      { path: '/api/v1', router: api },
      // The API reference (issue 46): public, with a CSP of its own for Redoc.
      { path: '/docs', router: apiReferenceRoutes(deps) },
      { router: pages },
    ],
    realtime,
  };
}

/** The web service alone: health, API, pages, and HTML/JSON errors. */
export function createWebApp(deps: WebDeps): WebApp {
  const metrics = createMetrics('web');
  opsGauges(deps, metrics);
  const { mounts, realtime } = webMounts(deps);
  const app = createServiceApp({ ...deps, metrics, mounts, renderHtml: renderErrorPage });
  return { app, realtime };
}

/** The Ops page's deployment-wide figures on /metrics, read on each scrape. */
export function opsGauges(deps: WebDeps, metrics: Metrics): void {
  registerOpsGauges(metrics.registry, () => deploymentHealth(deps));
}

/**
 * The Ops page's history of queue counts, outbox lag and agents online: a once-a-minute sample
 * into Redis, for the process that serves pages (several web processes still sample once).
 */
export function startOpsSampling(deps: WebDeps): OpsSampler {
  return startOpsSampler({ ...deps, prefix: deps.config.REDIS_PREFIX });
}
