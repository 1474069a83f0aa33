import type { Response } from 'express';
import { AppError } from '@ferry/core';
import { requireJsonBody, routeTable, type RouteTable } from '@ferry/http';
import {
  apiAuth,
  deleteErrorAlertRule,
  errorAlertRuleJson,
  errorAlertRulesJson,
  findErrorAlertRule,
  findErrorAlertSettings,
  listErrorAlertRules,
  requestDrain,
  saveErrorAlertRule,
  saveErrorAlertRules,
  validateErrorAlertRule,
  validateErrorAlertRules,
  type SavedErrorAlertRules,
} from '@ferry/workspace';
import { tokenScope } from '../../shared/access.js';
import type { WebDeps } from '../../deps.js';

/**
 * /api/v1/error-alerts (issue 26): the workspace's first error alert rule, as it was when a
 * workspace had one. `GET` with `tenant:read`, `PUT` (the whole rule) with `tenant:write`; 422
 * names the bad field (its shape, a room the workspace does not have, a URL refused under the SSRF
 * rules). The PUT answer carries the URL's signing secret (receivers verify the Standard Webhooks
 * signature with it); the GET never does.
 *
 * /api/v1/error-alerts/rules (issue 43): every rule. `GET` lists them (oldest first, the first is
 * the one above), `POST` adds one (201), `GET|PUT|DELETE /rules/:id` read, replace and delete one
 * (404 for an id the workspace does not have). Same scopes, same 422s, same signing secret.
 */
export function errorAlertsApi(deps: WebDeps): RouteTable {
  const { db, box } = deps;
  const routes = routeTable();
  const read = tokenScope(deps, 'tenant:read');
  const write = tokenScope(deps, 'tenant:write');

  routes.get('/', read, async (_req, res) => {
    const { workspace } = apiAuth(res);
    res.json(errorAlertRulesJson(await findErrorAlertSettings(db, workspace.id)));
  });

  routes.put('/', { access: write, before: [requireJsonBody] }, async (req, res) => {
    const { workspace } = apiAuth(res);
    const input = await validateErrorAlertRules(db, workspace.id, req.body, deps.settings.ssrf);
    const saved = await saveErrorAlertRules(db, box, workspace.id, input, null);
    if (saved.hook && saved.releasedDeliveries) await requestDrain(deps.producer, saved.hook.id);
    res.json({ ...errorAlertRulesJson(saved), signing_secret: saved.secret });
  });

  const noSuchRule = () => new AppError('not_found', 'No such alert rule in this workspace.');

  async function answerSaved(res: Response, saved: SavedErrorAlertRules, status: number) {
    if (saved.hook && saved.releasedDeliveries) await requestDrain(deps.producer, saved.hook.id);
    res.status(status).json({ ...errorAlertRuleJson(saved), signing_secret: saved.secret });
  }

  routes.get('/rules', read, async (_req, res) => {
    const { workspace } = apiAuth(res);
    const rules = await listErrorAlertRules(db, workspace.id);
    res.json({ rules: rules.map(errorAlertRuleJson) });
  });

  routes.post('/rules', { access: write, before: [requireJsonBody] }, async (req, res) => {
    const { workspace } = apiAuth(res);
    const input = await validateErrorAlertRule(
      db,
      workspace.id,
      null,
      req.body,
      deps.settings.ssrf,
    );
    const saved = await saveErrorAlertRule(db, box, workspace.id, null, input, null);
    if (!saved) throw noSuchRule();
    await answerSaved(res, saved, 201);
  });

  routes.get('/rules/:id', read, async (req, res) => {
    const { workspace } = apiAuth(res);
    const found = await findErrorAlertRule(db, workspace.id, String(req.params.id));
    if (!found) throw noSuchRule();
    res.json(errorAlertRuleJson(found));
  });

  routes.put('/rules/:id', { access: write, before: [requireJsonBody] }, async (req, res) => {
    const { workspace } = apiAuth(res);
    const id = String(req.params.id);
    if (!(await findErrorAlertRule(db, workspace.id, id))) throw noSuchRule();
    const input = await validateErrorAlertRule(db, workspace.id, id, req.body, deps.settings.ssrf);
    const saved = await saveErrorAlertRule(db, box, workspace.id, id, input, null);
    if (!saved) throw noSuchRule();
    await answerSaved(res, saved, 200);
  });

  routes.delete('/rules/:id', write, async (req, res) => {
    const { workspace } = apiAuth(res);
    if (!(await deleteErrorAlertRule(db, workspace.id, String(req.params.id)))) throw noSuchRule();
    res.status(204).end();
  });

  return routes;
}
