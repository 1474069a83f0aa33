import type { z } from 'zod';
import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import { AppError } from '@ferry/core';
import {
  access,
  errorBodySchema,
  hitRateLimit,
  inputOf,
  markStaticAsset,
  mount,
  parseInput,
  publicKeyApi,
  rateLimitedError,
  requireJsonBody,
  routeTable,
  storableBody,
  useBodyTimeout,
  type BodyTimeout,
  type MountedTable,
  type PublicKeyApi,
} from '@ferry/http';
import { buildWidget, CAPTURE_PATH, type WidgetBuild } from '@ferry/widget';
import {
  createScrubRulesCache,
  createTenantCache,
  createWidgetSettingsCache,
  evidenceFieldSchema,
  fileFeedback,
  fileFeedbackSchema,
  findVisitorId,
  identifyVisitor,
  parseScreenshotField,
  prepareEvidence,
  registerVisitor,
  SCREENSHOT_BODY_LIMIT,
  SCREENSHOT_TOO_LARGE,
  visitorIdentitySchema,
  type TenantCache,
} from '@ferry/workspace';
import type { WebDeps } from '../../deps.js';
import {
  configQuerySchema,
  feedbackFiledSchema,
  newVisitorSchema,
  VISITOR_HEADER_NOTE,
  widgetConfigSchema,
  widgetFeedbackSchema,
  type NewVisitorJson,
} from './api-schemas.js';

/** Feedback's body may carry a screenshot: the time a large body is given (body-deadline.ts). */
const FEEDBACK_BODY_TIMEOUT: BodyTimeout = 'upload';

/**
 * /widget/*: the embedded widget's bundle and its two public endpoints, called from customers'
 * pages on other origins. A public key is not a secret (it only says which workspace a ticket goes
 * to), so nothing here reads data back; what protects these endpoints is CORS without
 * credentials, body caps, the API's own field caps and rate limits per key, visitor and address.
 */

/** If-None-Match against our ETag, weakly (RFC 9110 8.8.3.2): `W/"x"` and `"x"` are the same. */
function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || bare(tag) === bare(etag));
}

/** Public-key CORS and tenant lookup for the widget's endpoints (packages/http's shared helper). */
function widgetApi(tenants: TenantCache): PublicKeyApi {
  return publicKeyApi({
    allowHeaders: ['Content-Type', 'X-Service-Tenant', 'X-Service-Visitor'],
    exposeHeaders: ['Retry-After'],
    maxAgeSeconds: 600,
    workspaceId: (key) => tenants.workspaceId(key),
    unknownKey: () =>
      new AppError(
        'not_found',
        'No workspace has this public key: send the key from the widget snippet in the X-Service-Tenant header.',
      ),
  });
}

/** A 429 of these endpoints: Ferry's error body, with when to try again. */
const rateLimitedDoc = {
  description: 'Over a rate limit.',
  schema: errorBodySchema,
  headers: { 'Retry-After': 'Seconds to wait.' },
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
): { bundle: MountedTable; endpoints: MountedTable; cors: RequestHandler } {
  const { db, redis, config } = deps;
  const bundleRoutes = routeTable();
  let bundle: Promise<WidgetBuild> | undefined;

  // The bundle: built once per process (esbuild, ~50 ms), then served from memory. Customers'
  // pages load it from another origin, so it carries its own CORS and resource-policy headers
  // (never the pages' strict ones). A fixed URL: a day's cache, then revalidated by ETag.
  function built(): Promise<WidgetBuild> {
    bundle ??= buildWidget().catch((error: unknown) => {
      bundle = undefined;
      throw error;
    });
    return bundle;
  }

  /** A script for customers' pages: CORS and resource policy of its own, revalidated by ETag. */
  function serveScript(req: Request, res: Response, script: { code: string; etag: string }): void {
    // Every page view of every customer's site asks for it: a line only when it fails or is slow.
    markStaticAsset(res);
    res.set({
      'Content-Type': 'application/javascript; charset=utf-8',
      'Cache-Control': 'public, max-age=86400, stale-while-revalidate=604800',
      ETag: script.etag,
      'Access-Control-Allow-Origin': '*',
      'Cross-Origin-Resource-Policy': 'cross-origin',
      'X-Content-Type-Options': 'nosniff',
    });
    // Weak comparison: a compressed answer's ETag is the weak W/"…" (packages/http compress.ts),
    // and a client revalidates with whichever form it was given.
    if (etagMatches(req.get('if-none-match'), script.etag)) {
      res.status(304).end();
      return;
    }
    res.send(script.code);
  }

  bundleRoutes.get(
    '/widget/v1.js',
    access.public("the widget bundle customers' pages load"),
    async (req, res) => {
      serveScript(req, res, await built());
    },
  );
  // The screenshot chunk, fetched by v1.js only when a visitor asks for a screenshot. Its URL
  // carries the content hash (`?v=`), so the same caching is safe for it.
  bundleRoutes.get(
    CAPTURE_PATH,
    access.public("the widget's screenshot code, loaded on demand by the public bundle"),
    async (req, res) => {
      serveScript(req, res, (await built()).capture);
    },
  );

  const endpoints = routeTable();
  const publicKey = access.keyCheckedBy(
    'the workspace public key in X-Service-Tenant',
    'workspaceOf, first in each handler: its 404 still carries the CORS headers',
  );
  const { cors, workspaceOf } = widgetApi(createTenantCache(db));
  const widgetSettings = createWidgetSettingsCache(db);
  const scrubRules = createScrubRulesCache(db);

  async function limit(key: string, max: number, what: string): Promise<void> {
    const wait = await hitRateLimit(redis, `${config.REDIS_PREFIX}:widget:${key}`, max);
    if (wait !== undefined) {
      throw rateLimitedError(`Too many ${what}; try again in ${wait} seconds.`, wait);
    }
  }

  // What the bundle needs to know at load (issue 45: whether to capture console and network
  // activity). The key rides in the query so this is a simple GET: no preflight on every page
  // view. Public and cacheable for a minute; it says nothing but the workspace's widget switches.
  endpoints.get(
    '/config',
    {
      access: publicKey,
      doc: {
        summary: 'The widget’s settings',
        description:
          'What the widget bundle asks when it loads. The public key may ride in `?key=` (a simple request: no preflight on every page view) or `X-Service-Tenant`; 404 for a key no workspace has. Cacheable for a minute.',
        tag: 'Widget',
        security: 'publicKey',
        query: configQuerySchema,
        responses: {
          200: {
            description: 'The workspace’s widget switches.',
            schema: widgetConfigSchema,
            headers: { 'Cache-Control': '`public, max-age=60`.' },
          },
        },
      },
    },
    async (req, res) => {
      const { key } = inputOf(res.locals, 'query', configQuerySchema);
      const workspaceId = await workspaceOf(key ?? req.get('X-Service-Tenant'));
      const { capture } = await widgetSettings.settings(workspaceId);
      res.set('Cache-Control', 'public, max-age=60');
      res.json({ capture });
    },
  );

  endpoints.post(
    '/visitors',
    {
      access: publicKey,
      doc: {
        summary: 'Register a visitor',
        description: `A new visitor of the workspace’s sites, whose token the widget then sends with its calls. ${VISITOR_HEADER_NOTE} Rate-limited per key and per client address (429 with \`Retry-After\`).`,
        tag: 'Widget',
        security: 'publicKey',
        responses: {
          201: { description: 'The new visitor and its token.', schema: newVisitorSchema },
          429: rateLimitedDoc,
        },
      },
    },
    async (req, res) => {
      const tenant = req.get('X-Service-Tenant');
      const workspaceId = await workspaceOf(tenant);
      await limit(`visitors:key:${workspaceId}`, limits.visitorsPerKey, 'new visitors');
      await limit(`visitors:ip:${req.ip ?? ''}`, limits.visitorsPerAddress, 'new visitors');
      const answer: NewVisitorJson = { visitor: await registerVisitor(db, workspaceId) };
      res.status(201).json(answer);
    },
  );

  // `service('identify', …)`: who the visitor is, so the Errors page can name them (never by
  // their token). Sent by the widget when the identity changes, with the visitor's token.
  endpoints.post(
    '/visitors/identity',
    {
      access: publicKey,
      before: [requireJsonBody],
      doc: {
        summary: 'Identify a visitor',
        description: `\`service('identify', …)\`: who the visitor is, so the Errors page names them (never by their token). Fields left out are cleared. ${VISITOR_HEADER_NOTE} Required here: 401 without a known one. Rate-limited per visitor (429).`,
        tag: 'Widget',
        security: 'publicKey',
        rawBody: {
          contentTypes: ['application/json'],
          description:
            'The identity, read by the route after the key and visitor checks: a refused field answers 422 naming it.',
          schema: visitorIdentitySchema,
        },
        responses: { 204: { description: 'Recorded.' }, 429: rateLimitedDoc },
      },
    },
    async (req, res) => {
      const workspaceId = await workspaceOf(req.get('X-Service-Tenant'));
      const visitorId = await findVisitorId(db, workspaceId, req.get('X-Service-Visitor'));
      if (!visitorId) {
        throw new AppError(
          'invalid_token',
          'Send a visitor token from /widget/v1/visitors in the X-Service-Visitor header.',
        );
      }
      await limit(`identity:${visitorId}`, limits.feedbackPerVisitor, 'identify calls');
      const identity = parseInput(visitorIdentitySchema, req.body, 'identity');
      await identifyVisitor(db, visitorId, identity);
      res.status(204).end();
    },
  );

  endpoints.post(
    '/feedback',
    {
      access: publicKey,
      // A screenshot of up to 2 MB from a visitor's phone. The body is read before this table's
      // routes (widgetRoutes), which apply the same kind there.
      bodyTimeout: FEEDBACK_BODY_TIMEOUT,
      before: [requireJsonBody],
      doc: {
        summary: 'File feedback',
        description: `A visitor’s ticket, filed as the API files one (its conversation, its \`feedback_filed\` event), with an optional screenshot and console/network capture. ${VISITOR_HEADER_NOTE} Optional here: the ticket is then linked to the visitor and its errors; an unknown one answers 401. Rate-limited per key and per visitor (or address) (429).`,
        tag: 'Widget',
        security: 'publicKey',
        rawBody: {
          contentTypes: ['application/json'],
          description:
            'The ticket as JSON (the screenshot inside it as a data URL; up to about 2.9 MB in all), read by the route after the key, visitor and rate-limit checks: a refused field answers 422 naming it.',
          schema: widgetFeedbackSchema,
        },
        responses: {
          201: { description: 'Filed: the ticket’s id.', schema: feedbackFiledSchema },
          429: rateLimitedDoc,
        },
      },
    },
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
      await limit(`feedback:key:${workspaceId}`, limits.feedbackPerKey, 'feedback reports');
      const who = visitorId ? `visitor:${visitorId}` : `ip:${req.ip ?? ''}`;
      await limit(`feedback:${who}`, limits.feedbackPerVisitor, 'feedback reports');
      const input = parseInput(fileFeedbackSchema, req.body, 'feedback');
      // The optional screenshot: checked by its bytes (413/415/422), stored with the ticket.
      const screenshot = parseScreenshotField((req.body as { screenshot?: unknown }).screenshot);
      // The console/network capture (issue 45): checked, then kept only when the workspace has
      // capture on (a widget with a stale setting, or any other client, cannot add it), scrubbed
      // with the error reports' rules and capped at 64 KB before it is stored.
      const { evidence: sent } = parseInput(evidenceFieldSchema, req.body, 'feedback');
      const evidence =
        sent && (await widgetSettings.settings(workspaceId)).capture
          ? prepareEvidence(sent, await scrubRules.rules(workspaceId))
          : undefined;
      // Filed exactly as the API files it: its conversation, its feedback_filed event.
      const feedback = await fileFeedback(db, workspaceId, input, {
        visitorId: visitorId ?? null,
        screenshot,
        evidence,
      });
      res.status(201).json({ id: feedback.id } satisfies z.infer<typeof feedbackFiledSchema>);
    },
  );

  return {
    bundle: { base: '/', table: bundleRoutes },
    endpoints: { base: '/widget/v1', table: endpoints },
    cors,
  };
}

/** /widget/*: public and cross-origin (mount it before the pages). */
export function widgetRoutes(deps: WebDeps, limits: WidgetLimits = DEFAULT_WIDGET_LIMITS): Router {
  const { bundle, endpoints, cors } = widgetTables(deps, limits);
  const router = Router();
  router.use(mount(bundle));
  const api = Router();
  // Answers every request, errors included, with CORS; the preflight ends here.
  api.use(cors);
  // Feedback may carry a screenshot (2 MB as base64); every other body stays small. A body over
  // even that says so in the screenshot's words, not body-parser's.
  const feedbackJson = express.json({ limit: SCREENSHOT_BODY_LIMIT });
  api.use('/feedback', useBodyTimeout(FEEDBACK_BODY_TIMEOUT), (req, res, next) => {
    feedbackJson(req, res, (error?: unknown) => {
      const tooLarge = (error as { type?: string } | undefined)?.type === 'entity.too.large';
      next(tooLarge ? new AppError('payload_too_large', SCREENSHOT_TOO_LARGE) : error);
    });
  });
  api.use(express.json({ limit: '64kb' }));
  api.use(storableBody);
  api.use(mount(endpoints));
  // Unknown widget paths answer a JSON 404 with CORS, like every other answer here.
  api.use((_req, _res, next) => next(new AppError('not_found', 'No such widget endpoint.')));
  router.use(endpoints.base, api);
  return router;
}
