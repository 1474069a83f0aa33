import { requireJsonBody, routeTable, type RouteDoc, type RouteTable } from '@ferry/http';
import { z } from 'zod';
import {
  apiAuth,
  catalogJson,
  catalogJsonEntrySchema,
  endpointInputSchema,
  endpointJsonSchema,
  webhookTestJson,
  createEndpoint,
  deleteEndpoint,
  endpointJson,
  listEndpoints,
  requireEndpoint,
  updateEndpoint,
  validateEndpoint,
} from '@ferry/workspace';
import { AppError } from '@ferry/core';
import { tokenScope } from '../../shared/access.js';
import type { WebDeps } from '../../deps.js';

/**
 * /api/v1/event-types: the catalog (each type's delivery body as JSON Schema), `tenant:read`.
 * /api/v1/event-webhooks: the endpoints. `GET` lists, `POST` adds (201, with the signing secret
 * once), `GET|PUT|DELETE /:id` read, replace and delete one (404 for another workspace's id).
 * `tenant:read` to read, `tenant:write` to change; 422 names the bad field.
 */
export function eventTypesApi(deps: WebDeps): RouteTable {
  const routes = routeTable();
  routes.get(
    '/',
    {
      access: tokenScope(deps, 'tenant:read'),
      doc: {
        summary: 'List event types',
        description:
          'The catalog an event webhook endpoint subscribes from, each type with the JSON Schema of its delivery body (the Standard Webhooks envelope), and the test event "Send test event" delivers.',
        tag: 'Event webhooks',
        security: 'bearer',
        responses: {
          200: {
            description: 'The catalog.',
            schema: z.object({
              event_types: z.array(catalogJsonEntrySchema),
              test_event: catalogJsonEntrySchema
                .omit({ type: true, resource: true })
                .extend({ type: z.literal('webhook.test') }),
            }),
          },
        },
      },
    },
    (_req, res) => {
      res.json({ event_types: catalogJson(), test_event: webhookTestJson() });
    },
  );
  return routes;
}

/**
 * The body is validated by validateEndpoint together with the URL's SSRF rules and the rooms, so
 * one 422 names every bad field: described here, not validated a second time.
 */
const endpointBody: NonNullable<RouteDoc['rawBody']> = {
  contentTypes: ['application/json'],
  description:
    'The whole endpoint: its URL (public under the SSRF rules), the event types it receives and its filters.',
  schema: endpointInputSchema,
};
const endpointParams = z.object({
  id: z.string().meta({ example: 'owh_01m95vcs448p8d8nkpkmbpan9e' }),
});
const doc = (summary: string, rest: Omit<RouteDoc, 'summary' | 'tag' | 'security'>): RouteDoc => ({
  summary,
  tag: 'Event webhooks',
  security: 'bearer',
  ...rest,
});

export function eventWebhooksApi(deps: WebDeps): RouteTable {
  const { db, box } = deps;
  const routes = routeTable();
  const read = tokenScope(deps, 'tenant:read');
  const write = tokenScope(deps, 'tenant:write');

  routes.get(
    '/',
    {
      access: read,
      doc: doc('List event webhook endpoints', {
        responses: {
          200: {
            description: 'Every endpoint, never its secret.',
            schema: z.object({ endpoints: z.array(endpointJsonSchema) }),
          },
        },
      }),
    },
    async (_req, res) => {
      const { workspace } = apiAuth(res);
      const endpoints = await listEndpoints(db, workspace.id);
      res.json({ endpoints: endpoints.map((endpoint) => endpointJson(endpoint)) });
    },
  );

  routes.post(
    '/',
    {
      access: write,
      before: [requireJsonBody],
      doc: doc('Add an event webhook endpoint', {
        rawBody: endpointBody,
        responses: {
          201: {
            description: 'The endpoint, with its signing secret: shown this once.',
            schema: endpointJsonSchema.extend({
              signing_secret: z.string().meta({
                description: 'Receivers verify the Standard Webhooks signature with it.',
              }),
            }),
          },
        },
      }),
    },
    async (req, res) => {
      const { workspace } = apiAuth(res);
      const input = await validateEndpoint(db, workspace.id, req.body, deps.settings.ssrf);
      const { endpoint, secret } = await createEndpoint(db, box, workspace.id, input, null);
      res.status(201).json({ ...endpointJson(endpoint), signing_secret: secret });
    },
  );

  routes.get(
    '/:id',
    {
      access: read,
      doc: doc('Get an event webhook endpoint', {
        params: endpointParams,
        responses: { 200: { description: 'The endpoint.', schema: endpointJsonSchema } },
      }),
    },
    async (req, res) => {
      const { workspace } = apiAuth(res);
      res.json(endpointJson(await requireEndpoint(db, workspace.id, String(req.params.id))));
    },
  );

  routes.put(
    '/:id',
    {
      access: write,
      before: [requireJsonBody],
      doc: doc('Replace an event webhook endpoint', {
        params: endpointParams,
        rawBody: endpointBody,
        responses: {
          200: { description: 'The endpoint as saved.', schema: endpointJsonSchema },
        },
      }),
    },
    async (req, res) => {
      const { workspace } = apiAuth(res);
      const id = String(req.params.id);
      await requireEndpoint(db, workspace.id, id);
      const input = await validateEndpoint(db, workspace.id, req.body, deps.settings.ssrf);
      res.json(endpointJson(await updateEndpoint(db, workspace.id, id, input)));
    },
  );

  routes.delete(
    '/:id',
    {
      access: write,
      doc: doc('Delete an event webhook endpoint', {
        params: endpointParams,
        responses: { 204: { description: 'Deleted.' } },
      }),
    },
    async (req, res) => {
      const { workspace } = apiAuth(res);
      if (!(await deleteEndpoint(db, workspace.id, String(req.params.id)))) {
        throw new AppError('not_found', 'No such event webhook endpoint in this workspace.');
      }
      res.status(204).end();
    },
  );

  return routes;
}
