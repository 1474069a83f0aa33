import express, { Router, type RequestHandler, type Response } from 'express';
import { AppError } from '@ferry/core';
import {
  access,
  hitRateLimit,
  mount,
  parseInput,
  requireJsonBody,
  routeTable,
  storableBody,
  type MountedTable,
} from '@ferry/http';
import { buildWidget, type WidgetBuild } from '@ferry/widget';
import {
  createTenantCache,
  fileFeedback,
  fileFeedbackSchema,
  findVisitorId,
  registerVisitor,
} from '@ferry/workspace';
import type { WebDeps } from '../deps.js';

/**
 * /widget/*: the embedded widget's bundle and its two public endpoints, called from customers'
 * pages on other origins. A public key is not a secret (it only says which workspace a ticket goes
 * to), so nothing here reads data back; what protects these endpoints is CORS without
 * credentials, body caps, the API's own field caps and rate limits per key, visitor and address.
 */

const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Content-Type, X-Service-Tenant, X-Service-Visitor',
  'Access-Control-Max-Age': '600',
};

/** Every answer, errors included, is readable by the page that asked. */
const cors: RequestHandler = (req, res, next) => {
  res.set(CORS_HEADERS);
  if (req.method === 'OPTIONS') {
    res.status(204).end();
    return;
  }
  next();
};

export interface WidgetLimits {
  /** New visitors per public key per minute, and per client address. */
  visitorsPerKey: number;
  visitorsPerAddress: number;
  /** Tickets per public key per minute, and per visitor (or address without one). */
  feedbackPerKey: number;
  feedbackPerVisitor: number;
}

export const DEFAULT_WIDGET_LIMITS: WidgetLimits = {
  visitorsPerKey: 600,
  visitorsPerAddress: 30,
  feedbackPerKey: 120,
  feedbackPerVisitor: 10,
};

/** The widget's routes: the bundle (public) and its endpoints (the workspace's public key). */
export function widgetTables(
  deps: WebDeps,
  limits: WidgetLimits = DEFAULT_WIDGET_LIMITS,
): { bundle: MountedTable; endpoints: MountedTable } {
  const { db, redis, config } = deps;
  const bundleRoutes = routeTable();
  const tenants = createTenantCache(db);
  let bundle: Promise<WidgetBuild> | undefined;

  // The bundle: built once per process (esbuild, ~50 ms), then served from memory. Customers'
  // pages load it from another origin, so it carries its own CORS and resource-policy headers
  // (never the pages' strict ones). A fixed URL: a day's cache, then revalidated by ETag.
  bundleRoutes.get(
    '/widget/v1.js',
    access.public("the widget bundle customers' pages load"),
    async (req, res) => {
      bundle ??= buildWidget().catch((error: unknown) => {
        bundle = undefined;
        throw error;
      });
      const { code, etag } = await bundle;
      res.set({
        'Content-Type': 'application/javascript; charset=utf-8',
        'Cache-Control': 'public, max-age=86400, stale-while-revalidate=604800',
        ETag: etag,
        'Access-Control-Allow-Origin': '*',
        'Cross-Origin-Resource-Policy': 'cross-origin',
        'X-Content-Type-Options': 'nosniff',
      });
      if (req.get('if-none-match') === etag) {
        res.status(304).end();
        return;
      }
      res.send(code);
    },
  );

  const endpoints = routeTable();
  const publicKey = access.key('the workspace public key in X-Service-Tenant (workspaceOf)');

  async function workspaceOf(tenant: string | undefined): Promise<string> {
    const workspaceId = tenant ? await tenants.workspaceId(tenant) : undefined;
    if (!workspaceId) {
      throw new AppError(
        'not_found',
        'No workspace has this public key: send the key from the widget snippet in the X-Service-Tenant header.',
      );
    }
    return workspaceId;
  }

  async function limit(res: Response, key: string, max: number, what: string): Promise<void> {
    const wait = await hitRateLimit(redis, `${config.REDIS_PREFIX}:widget:${key}`, max);
    if (wait !== undefined) {
      throw new AppError('rate_limited', `Too many ${what}; try again in ${wait} seconds.`, {
        headers: { 'Retry-After': String(wait) },
      });
    }
  }

  endpoints.post('/visitors', publicKey, async (req, res) => {
    const tenant = req.get('X-Service-Tenant');
    const workspaceId = await workspaceOf(tenant);
    await limit(res, `visitors:key:${workspaceId}`, limits.visitorsPerKey, 'new visitors');
    await limit(res, `visitors:ip:${req.ip ?? ''}`, limits.visitorsPerAddress, 'new visitors');
    const visitor = await registerVisitor(db, workspaceId);
    res.status(201).json({ visitor });
  });

  endpoints.post(
    '/feedback',
    { access: publicKey, before: [requireJsonBody] },
    async (req, res) => {
      const workspaceId = await workspaceOf(req.get('X-Service-Tenant'));
      const token = req.get('X-Service-Visitor');
      const visitorId = token ? await findVisitorId(db, workspaceId, token) : undefined;
      if (token && !visitorId) {
        throw new AppError(
          'invalid_token',
          'This visitor token is unknown to the workspace: drop it and get a new one from /widget/v1/visitors.',
        );
      }
      await limit(res, `feedback:key:${workspaceId}`, limits.feedbackPerKey, 'feedback reports');
      const who = visitorId ? `visitor:${visitorId}` : `ip:${req.ip ?? ''}`;
      await limit(res, `feedback:${who}`, limits.feedbackPerVisitor, 'feedback reports');
      const input = parseInput(fileFeedbackSchema, req.body, 'feedback');
      // Filed exactly as the API files it: its conversation, its feedback_filed event.
      const feedback = await fileFeedback(db, workspaceId, input, { visitorId: visitorId ?? null });
      res.status(201).json({ id: feedback.id });
    },
  );

  return {
    bundle: { base: '/', table: bundleRoutes },
    endpoints: { base: '/widget/v1', table: endpoints },
  };
}

/** /widget/*: public and cross-origin (mount it before the pages). */
export function widgetRoutes(deps: WebDeps, limits: WidgetLimits = DEFAULT_WIDGET_LIMITS): Router {
  const { bundle, endpoints } = widgetTables(deps, limits);
  const router = Router();
  router.use(mount(bundle));
  const api = Router();
  api.use(cors);
  api.use(express.json({ limit: '64kb' }));
  api.use(storableBody);
  api.use(mount(endpoints));
  // Unknown widget paths answer a JSON 404 with CORS, like every other answer here.
  api.use((_req, _res, next) => next(new AppError('not_found', 'No such widget endpoint.')));
  router.use(endpoints.base, api);
  return router;
}
