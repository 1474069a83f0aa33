import express, { Router, type RequestHandler } from 'express';
import { AppError } from '@ferry/core';
import { access, mount, routeTable, type MountedTable } from '@ferry/http';
import { acceptReports } from './accept.js';
import type { IngestDeps } from './deps.js';
import { findVisitorId } from '@ferry/workspace';

export const INGEST_PATH = '/ingest/errors';
const BODY_LIMIT = '512kb';

/**
 * Browsers post reports from any site (the widget), so every answer carries CORS headers, error
 * answers included (a page must be able to read a 429). Set first, before anything can fail.
 */
const cors: RequestHandler = (_req, res, next) => {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
  res.setHeader(
    'Access-Control-Allow-Headers',
    'Content-Type, X-Service-Tenant, X-Service-Visitor',
  );
  res.setHeader('Access-Control-Max-Age', '86400');
  next();
};

/**
 * An empty or blank body is no report at all. express.json would read an empty one as `{}` (one
 * report with every field left out, stored as an UnknownError) and leave a missing one undefined,
 * so it is refused here, whatever the Content-Type, before anything is parsed or counted.
 */
const emptyBody = (): AppError =>
  new AppError(
    'invalid_json',
    'The request body is empty: send one error report, or {"errors": [...]}, as JSON.',
  );

/** JSON's own whitespace (RFC 8259): space, tab, line feed, carriage return. */
const JSON_WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

function isBlank(body: Buffer): boolean {
  return body.every((byte) => JSON_WHITESPACE.has(byte));
}

export function ingestTable(deps: IngestDeps): MountedTable {
  const routes = routeTable();
  const publicKey = access.key(
    'the workspace public key in X-Service-Tenant (tenants.workspaceId)',
  );
  // Any content type is read as JSON: the body must be JSON, and a browser sending text/plain
  // (to skip the preflight) or a client forgetting the header should still be understood.
  // `verify` sees the raw bytes of a body that was sent; an AppError thrown there keeps its 400.
  const json = express.json({
    limit: BODY_LIMIT,
    type: () => true,
    strict: false,
    verify: (_req, _res, body) => {
      if (isBlank(body)) throw emptyBody();
    },
  });

  routes.options(INGEST_PATH, access.public('the CORS preflight'), (_req, res) => {
    res.status(204).end();
  });

  const enabled: RequestHandler = (_req, _res, next) => {
    if (!deps.settings.ERROR_INGESTION_ENABLED) {
      next(new AppError('unavailable', 'Error ingestion is turned off on this deployment.'));
      return;
    }
    next();
  };

  routes.post(INGEST_PATH, { access: publicKey, before: [enabled, json] }, async (req, res) => {
    const receivedAt = new Date();
    const publicKey = req.get('X-Service-Tenant');
    const workspaceId = publicKey ? await deps.tenants.workspaceId(publicKey) : undefined;
    if (!workspaceId) {
      throw new AppError(
        'not_found',
        'No workspace has this public key; send it in the X-Service-Tenant header.',
      );
    }
    // express.json leaves req.body undefined when no body was sent at all.
    if (req.body === undefined) throw emptyBody();
    const visitorId = await findVisitorId(deps.db, workspaceId, req.get('X-Service-Visitor'));
    const result = await acceptReports(deps, {
      workspaceId,
      visitorId,
      body: req.body as unknown,
      receivedAt,
    });
    res.status(202).json(result);
  });
  return { base: '/', table: routes };
}

/**
 * POST /ingest/errors (+ its preflight). CORS first, before anything can fail (a page must be
 * able to read a 429); body-parser errors go to the shared error middleware.
 */
export function ingestRoutes(deps: IngestDeps): Router {
  const router = Router();
  router.use(INGEST_PATH, cors);
  router.use(mount(ingestTable(deps)));
  return router;
}
