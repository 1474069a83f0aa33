import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import express, { type Router } from 'express';
import helmet from 'helmet';
import { access, markStaticAsset, mount, routeTable } from '@ferry/http';
import type { WebDeps } from '../../deps.js';
import { escapeHtml } from '../../shared/html.js';

/**
 * /docs/api (issue 46): the API reference, rendered in the browser by Redoc from
 * /api/v1/openapi.json. Everything is served from Ferry itself (Redoc's standalone bundle from
 * node_modules, a small start script), never a CDN: Ferry may run offline, and its pages load
 * nothing from elsewhere. No sign-in: the description holds no data, only what may be called.
 */

const require = createRequire(import.meta.url);
const REDOC_BUNDLE = require.resolve('redoc/bundles/redoc.standalone.js');

/**
 * Redoc's sidebar shows "API docs by Redocly" with a logo it loads from cdn.redoc.ly (an <img>
 * that hides itself when it fails to load). The page's CSP would block it, but the browser would
 * still try: the URL is taken out of the bundle, so the page asks nothing of another host.
 */
const REDOC_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

let redoc: { code: string; etag: string } | undefined;
function redocBundle(): { code: string; etag: string } {
  if (!redoc) {
    const code = readFileSync(REDOC_BUNDLE, 'utf8').replaceAll(REDOC_LOGO, '');
    const etag = `"${createHash('sha256').update(code).digest('base64url').slice(0, 27)}"`;
    redoc = { code, etag };
  }
  return redoc;
}

/**
 * Redoc's styles come from styled-components (style elements it writes) and its search runs in a
 * worker it makes from a blob: the page's own CSP allows those two, and still only this origin
 * for scripts, fonts, images and connections.
 */
const referenceHeaders = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      fontSrc: ["'self'"],
      connectSrc: ["'self'"],
      workerSrc: ["'self'", 'blob:'],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
      objectSrc: ["'none'"],
      formAction: ["'none'"],
    },
  },
  frameguard: { action: 'deny' },
  referrerPolicy: { policy: 'same-origin' },
  crossOriginEmbedderPolicy: false,
});

/** Redoc's start: an external script, as the CSP allows no inline one. */
const START_SCRIPT = `(function () {
  var el = document.getElementById('redoc');
  window.Redoc.init(el.getAttribute('data-spec'), {
    hideDownloadButton: false,
    expandResponses: '200,201,202',
    jsonSampleExpandLevel: 3,
    scrollYOffset: 0,
    theme: { colors: { primary: { main: '#1d4ed8' } }, typography: { fontFamily: 'system-ui, sans-serif', headings: { fontFamily: 'system-ui, sans-serif' } } }
  }, el);
})();
`;

function referencePage(publicUrl: string): string {
  const tokens = 'Settings › API tokens';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Ferry API reference</title>
<link rel="icon" href="/assets/favicon.svg">
<link rel="stylesheet" href="/docs/api/reference.css">
</head>
<body>
<header class="api-docs-head">
  <a class="brand" href="/">Ferry</a>
  <p>
    Every call below answers JSON. Make a token on your workspace’s <strong>${escapeHtml(tokens)}</strong>
    page and send it as <code>Authorization: Bearer fry_…</code>; error reports use the workspace’s
    public key instead. The description itself:
    <a href="/api/v1/openapi.json">${escapeHtml(publicUrl)}/api/v1/openapi.json</a> (OpenAPI 3.1).
  </p>
</header>
<main id="redoc" data-spec="/api/v1/openapi.json"></main>
<script src="/docs/api/redoc.standalone.js"></script>
<script src="/docs/api/start.js"></script>
</body>
</html>`;
}

const REFERENCE_CSS = `body { margin: 0; font-family: system-ui, sans-serif; }
.api-docs-head { display: flex; flex-wrap: wrap; gap: 0.25rem 1.5rem; align-items: baseline;
  padding: 0.75rem 1.25rem; background: #111827; color: #e5e7eb; font-size: 0.9rem; }
.api-docs-head p { margin: 0; flex: 1 1 20rem; line-height: 1.5; }
.api-docs-head a { color: #93c5fd; overflow-wrap: anywhere; }
.api-docs-head .brand { color: #fff; font-weight: 700; font-size: 1.1rem; text-decoration: none; }
.api-docs-head code { background: #1f2937; padding: 0 0.25rem; border-radius: 3px; }
`;

export function apiReferenceRoutes(deps: Pick<WebDeps, 'config'>): Router {
  const routes = routeTable();
  const open = access.public('the API reference: documentation, no data');
  routes.get('/api', open, (_req, res) => {
    res.type('html').send(referencePage(deps.config.PUBLIC_URL));
  });
  routes.get('/api/start.js', open, (_req, res) => {
    markStaticAsset(res);
    res
      .type('application/javascript')
      .set('Cache-Control', 'public, max-age=3600')
      .send(START_SCRIPT);
  });
  routes.get('/api/reference.css', open, (_req, res) => {
    markStaticAsset(res);
    res.type('text/css').set('Cache-Control', 'public, max-age=3600').send(REFERENCE_CSS);
  });
  routes.get('/api/redoc.standalone.js', open, (req, res) => {
    markStaticAsset(res);
    const bundle = redocBundle();
    res.set({
      'Content-Type': 'application/javascript; charset=utf-8',
      'Cache-Control': 'public, max-age=86400',
      ETag: bundle.etag,
    });
    if (req.fresh) {
      res.status(304).end();
      return;
    }
    res.send(bundle.code);
  });
  const router = express.Router();
  router.use(referenceHeaders);
  router.use(mount({ base: '/docs', table: routes }));
  return router;
}
