import {
  access,
  mountedRoutes,
  openApiDocument,
  routeTable,
  type RouteTable,
  type WebhookDoc,
} from '@ferry/http';
import {
  EVENT_CATALOG,
  EVENT_TYPES,
  WEBHOOK_TEST_TYPE,
  apiMessageJsonSchema,
  errorAlertPayloadSchema,
  eventEnvelopeSchema,
  webhookTestSchema,
} from '@ferry/workspace';
import { z } from 'zod';
import type { WebDeps } from '../../deps.js';
import { chooseDescription, publishedDescription } from './published.js';

/**
 * GET /api/v1/openapi.json (issue 46): the OpenAPI 3.1 description of every route that carries a
 * RouteDoc, generated from the route tables mounted in this process. Built on the first request,
 * when every table is mounted, then kept: the tables do not change while the process runs.
 */
/**
 * Where Ferry's machine-facing routes live: the description covers these, never pages (and never
 * a table some other code in the process mounted, as tests do).
 */
export const MACHINE_PATHS = /^\/(api\/|ingest\/|wh\/in\/|widget\/v1\/|agents\/v1\/)/;

/**
 * The description of the routes mounted in this process, with `serverUrl` as its server: what
 * GET /api/v1/openapi.json answers, and what docs/openapi.json holds (with the default URL).
 */
export function ferryOpenApiDocument(serverUrl: string): Record<string, unknown> {
  return openApiDocument(
    mountedRoutes().filter((route) => MACHINE_PATHS.test(route.pattern)),
    {
      title: 'Ferry API',
      version: 'v1',
      description:
        'Error ingestion, feedback, rooms and webhooks. Make an API token on the workspace’s API tokens page (Settings › API tokens) and send it as `Authorization: Bearer fry_…`.',
      serverUrl,
    },
    eventWebhooks(),
  );
}

export function apiDocsApi(deps: Pick<WebDeps, 'config'>): RouteTable {
  let document: Record<string, unknown> | undefined;
  const routes = routeTable();
  routes.get(
    '/openapi.json',
    {
      access: access.public('the API description: what any client may call, never data'),
      doc: {
        summary: 'This description',
        description:
          'The OpenAPI 3.1 description of the whole API, generated from the route tables (a web server running alone answers the copy published with its build, which describes every service). Cached for 5 minutes.',
        tag: 'API',
        security: 'none',
        responses: {
          200: {
            description: 'An OpenAPI 3.1 document.',
            schema: z.record(z.string(), z.unknown()),
            headers: { 'Cache-Control': '`public, max-age=300`.' },
          },
        },
      },
    },
    (_req, res) => {
      document ??= chooseDescription(
        ferryOpenApiDocument(deps.config.PUBLIC_URL),
        publishedDescription(),
        deps.config.PUBLIC_URL,
      );
      res.set('Cache-Control', 'public, max-age=300').json(document);
    },
  );
  return routes;
}

/** Every event type of the catalog (issue 44), and the test event, as the deliveries they are. */
function eventWebhooks(): Record<string, WebhookDoc> {
  const hooks: Record<string, WebhookDoc> = {};
  for (const type of EVENT_TYPES) {
    const entry = EVENT_CATALOG[type];
    hooks[type] = {
      summary: entry.title,
      description: `${entry.description} Sent to each event webhook endpoint subscribed to \`${type}\` (Settings › Event webhooks), in order per ${entry.resource.replace('_', ' ')}.`,
      tag: 'Event webhooks',
      schema: eventEnvelopeSchema(type),
    };
  }
  // A room's outgoing hooks (SPEC.md's `message_created`, `{event, room, message}`).
  hooks.message_created = {
    summary: 'Message posted in a room (room hooks)',
    description:
      'Sent to each outgoing hook of the room (room Settings › Webhooks) when a member posts: never for webhook, agent or system messages. The message is as `GET /api/v1/rooms/{roomId}/messages` shows it.',
    tag: 'Room hooks',
    schema: z.object({
      event: z.literal('message_created'),
      room: z.object({ id: z.string(), name: z.string(), workspace_id: z.string() }),
      message: apiMessageJsonSchema,
    }),
  };
  // An alert rule's URL (Error alerts): one per trigger.
  for (const [trigger, title] of [
    ['created', 'New error'],
    ['regressed', 'Regression: a resolved error is back'],
    ['spiking', 'Spike: more occurrences than the rule allows'],
  ] as const) {
    hooks[`error_group.${trigger}`] = {
      summary: `${title} (alert rule URL)`,
      description: `Sent to an error alert rule's URL when its \`${trigger}\` trigger fires (Settings › Error alerts). When that URL is also an event webhook endpoint subscribed to the matching event, it is sent once, as the event.`,
      tag: 'Error alerts',
      schema: errorAlertPayloadSchema,
    };
  }
  hooks[WEBHOOK_TEST_TYPE] = {
    summary: 'Test event',
    description: 'Sent to one endpoint when someone presses "Send test event" on its page.',
    tag: 'Event webhooks',
    schema: webhookTestSchema,
  };
  return hooks;
}
