import express, { Router, type RequestHandler } from 'express';
import { AppError } from '@ferry/core';
import { z } from 'zod';
import {
  access,
  errorBodySchema,
  mount,
  notFoundHandler,
  publicKeyApi,
  routeTable,
  routesOf,
  shareRoutes,
  type MountedTable,
  type RouteDoc,
} from '@ferry/http';
import { findVisitorId } from '@ferry/workspace';
import { acceptReports, RATE_LIMIT_RETRY_SECONDS } from './accept.js';
import { acceptedSchema, nativeBodySchema, sentryAnswerSchema } from './api-schemas.js';
import { decodeNative } from './decode/native.js';
import { sentryKey } from './decode/sentry-auth.js';
import { decodeEnvelope, type DecodedSentry } from './decode/sentry-envelope.js';
import { sentryDetail } from './decode/sentry-detail.js';
import { eventFrames, sentryReport } from './decode/sentry-event.js';
import { sentryGrouping } from './decode/sentry-grouping.js';
import { decodeStore } from './decode/sentry-store.js';
import type { IngestDeps } from './deps.js';
import { SENTRY_API_BASE, sentryApiErrors, sentryApiTable } from './sourcemaps/routes.js';

export const INGEST_PATH = '/ingest/errors';
/** Sentry's endpoints; any project segment (DESIGN.md: the key decides the workspace). */
export const SENTRY_ENVELOPE_PATH = '/api/:project/envelope';
export const SENTRY_STORE_PATH = '/api/:project/store';
const BODY_LIMIT = '512kb';
/**
 * A Sentry request's cap, after Content-Encoding is undone (a zip bomb stops here with 413):
 * Relay's own default for one event (max_event_size, 1 MiB).
 */
export const SENTRY_BODY_LIMIT_BYTES = 1024 * 1024;

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

/**
 * X-Sentry-Rate-Limits (develop.sentry.dev/sdk/expected-features/rate-limiting/): the error
 * categories, for the whole organization (the workspace), for as long as Retry-After says.
 */
const SENTRY_RATE_LIMITS = `${RATE_LIMIT_RETRY_SECONDS}:error;default:organization`;

/** The content types Sentry SDKs send: envelopes typed or not, browsers' text/plain, JSON. */
const SENTRY_CONTENT_TYPES = [
  'application/x-sentry-envelope',
  'text/plain;charset=UTF-8',
  'application/json',
] as const;

/** What both Sentry endpoints share: the key, the project segment, the answers. */
function sentryDoc(own: { summary: string; description: string; body: string }): RouteDoc {
  return {
    summary: own.summary,
    description: `${own.description} The key is the DSN's public key (\`X-Sentry-Auth\`, \`?sentry_key=\`, \`Authorization\` or the envelope's DSN): none answers 401, one no workspace has 403. Over the workspace's rate limit: 429 with \`Retry-After\` and \`X-Sentry-Rate-Limits\`, which SDKs honour. CORS is answered for browser SDKs.`,
    tag: 'Sentry',
    security: 'sentryKey',
    params: z.object({
      project: z.string().meta({
        description: 'The DSN’s project id: any value; the key decides the workspace.',
        example: '1',
      }),
    }),
    rawBody: { contentTypes: SENTRY_CONTENT_TYPES, description: own.body },
    responses: {
      200: { description: 'Received: the event’s id, or `{}`.', schema: sentryAnswerSchema },
      429: {
        description: 'Over the workspace’s rate limit.',
        schema: errorBodySchema,
        headers: {
          'Retry-After': `Seconds to wait: ${RATE_LIMIT_RETRY_SECONDS}.`,
          'X-Sentry-Rate-Limits': `Sentry's rate-limit header: \`${SENTRY_RATE_LIMITS}\`.`,
        },
      },
    },
  };
}

export function ingestTable(deps: IngestDeps): MountedTable {
  const routes = routeTable();

  // SPEC.md's endpoint: CORS `*` on every answer, 404 for a key that matches no workspace.
  const native = publicKeyApi({
    allowHeaders: ['Content-Type', 'X-Service-Tenant', 'X-Service-Visitor'],
    exposeHeaders: ['Retry-After'],
    workspaceId: (key) => deps.tenants.workspaceId(key),
    unknownKey: () =>
      new AppError(
        'not_found',
        'No workspace has this public key; send it in the X-Service-Tenant header.',
      ),
  });
  // Sentry's endpoints answer as Sentry does: 401 without a key, 403 for one it does not know.
  const sentry = publicKeyApi({
    allowHeaders: [
      'Content-Type',
      'Content-Encoding',
      'X-Sentry-Auth',
      'Authorization',
      'sentry-trace',
      'baggage',
    ],
    exposeHeaders: ['Retry-After', 'X-Sentry-Rate-Limits'],
    workspaceId: (key) => deps.tenants.workspaceId(key),
    unknownKey: (key) =>
      key
        ? new AppError(
            'forbidden',
            'No workspace has this public key: use the DSN from the Error reporting page.',
          )
        : new AppError(
            'unauthorized',
            'No public key was sent: give the SDK the DSN from the Error reporting page.',
          ),
  });

  const enabled: RequestHandler = (_req, _res, next) => {
    if (!deps.settings.ERROR_INGESTION_ENABLED) {
      next(new AppError('unavailable', 'Error ingestion is turned off on this deployment.'));
      return;
    }
    next();
  };

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
  // Sentry SDKs send envelopes with no Content-Type, text/plain from browsers, JSON or
  // octet-stream from older clients: read the bytes whatever the type, gzip/deflate/br undone,
  // the cap counted on the decoded bytes.
  const raw = express.raw({ type: () => true, limit: SENTRY_BODY_LIMIT_BYTES, inflate: true });

  for (const path of [INGEST_PATH, SENTRY_ENVELOPE_PATH, SENTRY_STORE_PATH]) {
    const cors = path === INGEST_PATH ? native.cors : sentry.cors;
    routes.options(path, access.public('the CORS preflight'), cors);
  }

  routes.post(
    INGEST_PATH,
    {
      access: access.keyCheckedBy(
        'the workspace public key in X-Service-Tenant',
        'native.workspaceOf, first in the handler: its 404 still carries the CORS headers',
      ),
      bodyTimeout: 'ingest',
      before: [native.cors, enabled, json],
      doc: {
        summary: 'Report errors',
        description:
          'SPEC.md’s own format: one report, or `{errors: [...], source?}` with up to 10. Fields are coerced and cut rather than refused: a report that cannot be read at all is dropped and the rest of the batch kept, so `accepted` may be lower than the number sent. Cross-origin requests are accepted (CORS `*`, with its preflight); any Content-Type is read as JSON, so a browser may send `text/plain` to skip the preflight. `X-Service-Visitor` (optional) is the widget’s visitor token: the report is tied to that visitor. A key that matches no workspace answers 404; ingestion turned off on the deployment, 503.',
        tag: 'Ingest',
        security: 'publicKey',
        rawBody: {
          contentTypes: ['application/json', 'text/plain'],
          description:
            'One report or a batch, as JSON (at most 512 KB). Read by the route itself: nothing here refuses a field.',
          schema: nativeBodySchema,
          outsideSchema:
            'SPEC.md: a report failing validation is dropped silently and the rest of the batch kept (202 with what was stored), and values are coerced and cut rather than refused.',
        },
        responses: {
          202: { description: 'The readable reports, stored.', schema: acceptedSchema },
          429: {
            description: `Over the workspace’s 120 reports a minute, shared by every source.`,
            schema: errorBodySchema,
            headers: { 'Retry-After': `Seconds to wait: ${RATE_LIMIT_RETRY_SECONDS}.` },
          },
        },
      },
    },
    async (req, res) => {
      const receivedAt = deps.now();
      const workspaceId = await native.workspaceOf(req.get('X-Service-Tenant'));
      // express.json leaves req.body undefined when no body was sent at all.
      if (req.body === undefined) throw emptyBody();
      const visitorId = await findVisitorId(deps.db, workspaceId, req.get('X-Service-Visitor'));
      const result = await acceptReports(deps, {
        workspaceId,
        visitorId,
        reports: decodeNative(req.body as unknown, receivedAt),
        receivedAt,
      });
      res.status(202).json(result);
    },
  );

  // A key sent with the request (query, X-Sentry-Auth, Authorization) is checked before the body
  // is read: an unknown one is refused at once (403), without reading or inflating up to 1 MiB.
  // Only a request without one (an SDK behind a tunnel) waits for the envelope header's `dsn`.
  const requestKey: RequestHandler = (req, res, next) => {
    const key = sentryKey(req);
    if (key === undefined) {
      next();
      return;
    }
    sentry.workspaceOf(key).then((workspaceId) => {
      res.locals.sentryWorkspaceId = workspaceId;
      next();
    }, next);
  };

  const sentryRoute =
    (decode: (body: Buffer) => DecodedSentry): RequestHandler =>
    async (req, res) => {
      const receivedAt = deps.now();
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const decoded = decode(body);
      const known = res.locals.sentryWorkspaceId as string | undefined;
      const workspaceId = known ?? (await sentry.workspaceOf(decoded.dsnKey));
      // What Sentry answers: the event's id (one is made up when the SDK sent none), or `{}`
      // for an envelope without an event (sessions, client reports, transactions: dropped).
      if (!decoded.event) {
        res.status(200).json({});
        return;
      }
      await acceptReports(deps, {
        workspaceId,
        visitorId: undefined,
        reports: [sentryReport(decoded.event, receivedAt)],
        extras: [
          {
            grouping: sentryGrouping(decoded.event),
            detail: sentryDetail(decoded.event, eventFrames(decoded.event)),
          },
        ],
        receivedAt,
        eventId: decoded.eventId,
        rateLimitHeaders: { 'X-Sentry-Rate-Limits': SENTRY_RATE_LIMITS },
      });
      res.status(200).json({ id: decoded.eventId ?? crypto.randomUUID().replaceAll('-', '') });
    };

  const sentryKeyAccess = access.keyCheckedBy(
    'the workspace public key as sentry_key (query, X-Sentry-Auth, Authorization or the envelope DSN)',
    'requestKey (in `before`, after CORS) for a key sent with the request, else sentryRoute on the envelope DSN; both with sentry.workspaceOf',
  );
  routes.post(
    SENTRY_ENVELOPE_PATH,
    {
      access: sentryKeyAccess,
      bodyTimeout: 'ingest',
      before: [sentry.cors, enabled, requestKey, raw],
      doc: sentryDoc({
        summary: 'Receive a Sentry envelope',
        description:
          'Sentry’s envelope endpoint, for Sentry SDKs given a Ferry DSN: the error or message event in the envelope is stored like any report; sessions, client reports and transactions are dropped (answered `{}`).',
        body: 'A Sentry envelope (develop.sentry.dev/sdk/envelopes/): newline-separated JSON headers and items. Compressed bodies (Content-Encoding gzip, deflate, br) are undone; at most 1 MiB once decoded (413 past it). Without a key in the request, the envelope header’s `dsn` names it.',
      }),
    },
    sentryRoute(decodeEnvelope),
  );
  routes.post(
    SENTRY_STORE_PATH,
    {
      access: sentryKeyAccess,
      bodyTimeout: 'ingest',
      before: [sentry.cors, enabled, requestKey, raw],
      doc: sentryDoc({
        summary: 'Receive a Sentry event (store)',
        description:
          'Sentry’s older store endpoint, for SDKs that post one event as JSON: stored like any report.',
        body: 'One Sentry event as JSON (develop.sentry.dev/sdk/event-payloads/), possibly base64 and zlib-compressed as older SDKs send it; Content-Encoding is undone; at most 1 MiB once decoded (413 past it).',
      }),
    },
    sentryRoute((body) => decodeStore(body, SENTRY_BODY_LIMIT_BYTES)),
  );
  return { base: '/', table: routes };
}

/**
 * POST /ingest/errors and Sentry's envelope and store endpoints (+ their preflights), and the
 * `/api/0/organizations/:org/...` endpoints sentry-cli uploads source maps to. CORS is the
 * first thing each route does, before anything can fail (a page must be able to read a 429);
 * body-parser errors go to the shared error middleware with those headers already set.
 */
export function ingestRoutes(deps: IngestDeps): Router {
  const router = Router();
  const ingest = mount(ingestTable(deps));
  router.use(ingest);
  // A hot mount: SPEC.md's endpoint is answered before the express stack (@ferry/http
  // hotDispatch). Not Sentry's: an error on `/api/0/…` is answered by sentryApiErrors below.
  shareRoutes(
    router,
    routesOf(ingest).filter((route) => route.pattern === INGEST_PATH),
  );
  // sentry-cli's endpoints answer errors in Sentry's shape, before the shared error middleware.
  router.use(SENTRY_API_BASE, mount(sentryApiTable(deps)), sentryApiErrors);
  // Other paths here are a client's mistake (an endpoint Ferry does not offer, a typo): JSON 404s,
  // in Sentry's shape under /api/0, rather than a page whose CSRF check answers 403.
  router.use('/api/0', notFoundHandler, sentryApiErrors);
  router.use('/ingest', notFoundHandler);
  return router;
}
