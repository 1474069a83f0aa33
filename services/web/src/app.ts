import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Express, type Router } from 'express';
import {
  createHttpApp,
  createMetrics,
  finishApp,
  healthRouter,
  registerOpsGauges,
  type Metrics,
} from '@ferry/http';
import { deploymentHealth, startOpsSampler, type OpsSampler } from '@ferry/workspace';
import type { WebDeps } from './deps.js';
import { renderErrorPage } from './error-page.js';
import { createRealtime, type Realtime } from './realtime.js';
import { widgetRoutes } from './api/widget.js';
import { apiRoutes, pageRoutes } from './routes.js';
import { pageSecurityHeaders } from './security-headers.js';
import { sessionMiddleware } from './session.js';

const PUBLIC_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'public');

export interface WebApp {
  app: Express;
  realtime: Realtime;
}

/**
 * The web service's parts, for mounting on a shared app (`pnpm start`) or its own: `widget` is
 * /widget/* (public, cross-origin: mount it before the pages), `api` is /api/v1 (tokens), `pages`
 * everything else (sessions).
 */
export function webParts(deps: WebDeps): {
  widget: Router;
  api: Router;
  pages: Router;
  realtime: Realtime;
} {
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
  pages.use('/assets', express.static(PUBLIC_DIR, { maxAge: '1h', index: false }));
  pages.use(session);
  const realtime = createRealtime(deps, session);
  pages.use(pageRoutes(deps, realtime));
  const api = express.Router();
  api.use(headers);
  api.use(apiRoutes(deps));
  return { widget: widgetRoutes(deps), api, pages, realtime };
}

/** The web service alone: health, API, pages, and HTML/JSON errors. */
export function createWebApp(
  deps: WebDeps,
  extraRouters: { path: string; router: Router }[] = [],
): WebApp {
  const metrics = createMetrics('web');
  opsGauges(deps, metrics);
  const app = createHttpApp({ logger: deps.logger, metrics, trustProxy: deps.config.TRUST_PROXY });
  app.use(
    healthRouter({
      db: deps.db,
      redis: deps.redis,
      metrics,
      metricsToken: deps.config.METRICS_TOKEN,
    }),
  );
  for (const { path: mountPath, router } of extraRouters) app.use(mountPath, router);
  const parts = webParts(deps);
  app.use(parts.widget);
  app.use('/api/v1', parts.api);
  app.use(parts.pages);
  finishApp(app, { logger: deps.logger, renderHtml: renderErrorPage });
  return { app, realtime: parts.realtime };
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
