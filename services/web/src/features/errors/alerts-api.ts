import { requireJsonBody, routeTable, type RouteTable } from '@ferry/http';
import {
  apiAuth,
  errorAlertRulesJson,
  findErrorAlertSettings,
  requestDrain,
  saveErrorAlertRules,
  validateErrorAlertRules,
} from '@ferry/workspace';
import { tokenScope } from '../../shared/access.js';
import type { WebDeps } from '../../deps.js';

/**
 * /api/v1/error-alerts (issue 26): the workspace's error alert rule. `GET` with `tenant:read`,
 * `PUT` (the whole rule) with `tenant:write`; 422 names the bad field (its shape, a room the
 * workspace does not have, a URL refused under the SSRF rules). The PUT answer carries the URL's
 * signing secret (receivers verify the Standard Webhooks signature with it); the GET never does.
 */
export function errorAlertsApi(deps: WebDeps): RouteTable {
  const { db, box } = deps;
  const routes = routeTable();

  routes.get('/', tokenScope(deps, 'tenant:read'), async (_req, res) => {
    const { workspace } = apiAuth(res);
    res.json(errorAlertRulesJson(await findErrorAlertSettings(db, workspace.id)));
  });

  routes.put(
    '/',
    { access: tokenScope(deps, 'tenant:write'), before: [requireJsonBody] },
    async (req, res) => {
      const { workspace } = apiAuth(res);
      const input = await validateErrorAlertRules(db, workspace.id, req.body, deps.settings.ssrf);
      const saved = await saveErrorAlertRules(db, box, workspace.id, input, null);
      if (saved.hook && saved.releasedDeliveries) await requestDrain(deps.producer, saved.hook.id);
      res.json({ ...errorAlertRulesJson(saved), signing_secret: saved.secret });
    },
  );

  return routes;
}
