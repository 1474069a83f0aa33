import { requireJsonBody, routeTable, type RouteTable } from '@ferry/http';
import {
  apiAuth,
  catalogJson,
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
  routes.get('/', tokenScope(deps, 'tenant:read'), (_req, res) => {
    res.json({ event_types: catalogJson(), test_event: webhookTestJson() });
  });
  return routes;
}

export function eventWebhooksApi(deps: WebDeps): RouteTable {
  const { db, box } = deps;
  const routes = routeTable();
  const read = tokenScope(deps, 'tenant:read');
  const write = tokenScope(deps, 'tenant:write');

  routes.get('/', read, async (_req, res) => {
    const { workspace } = apiAuth(res);
    const endpoints = await listEndpoints(db, workspace.id);
    res.json({ endpoints: endpoints.map((endpoint) => endpointJson(endpoint)) });
  });

  routes.post('/', { access: write, before: [requireJsonBody] }, async (req, res) => {
    const { workspace } = apiAuth(res);
    const input = await validateEndpoint(db, workspace.id, req.body, deps.settings.ssrf);
    const { endpoint, secret } = await createEndpoint(db, box, workspace.id, input, null);
    res.status(201).json({ ...endpointJson(endpoint), signing_secret: secret });
  });

  routes.get('/:id', read, async (req, res) => {
    const { workspace } = apiAuth(res);
    res.json(endpointJson(await requireEndpoint(db, workspace.id, String(req.params.id))));
  });

  routes.put('/:id', { access: write, before: [requireJsonBody] }, async (req, res) => {
    const { workspace } = apiAuth(res);
    const id = String(req.params.id);
    await requireEndpoint(db, workspace.id, id);
    const input = await validateEndpoint(db, workspace.id, req.body, deps.settings.ssrf);
    res.json(endpointJson(await updateEndpoint(db, workspace.id, id, input)));
  });

  routes.delete('/:id', write, async (req, res) => {
    const { workspace } = apiAuth(res);
    if (!(await deleteEndpoint(db, workspace.id, String(req.params.id)))) {
      throw new AppError('not_found', 'No such event webhook endpoint in this workspace.');
    }
    res.status(204).end();
  });

  return routes;
}
