import type { Response } from 'express';
import { AppError } from '@ferry/core';
import { requireJsonBody, routeTable, type RouteDoc, type RouteTable } from '@ferry/http';
import { z } from 'zod';
import {
  apiAuth,
  deleteErrorAlertRule,
  errorAlertRuleJson,
  errorAlertRuleJsonSchema,
  errorAlertRuleSchema,
  errorAlertRulesJson,
  errorAlertRulesJsonSchema,
  errorAlertRulesSchema,
  savedErrorAlertRuleJsonSchema,
  savedErrorAlertRulesJsonSchema,
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
/**
 * The bodies are validated by validateErrorAlertRule(s) together with the room, URL and spike
 * window checks, so one 422 names every bad field: described here, not validated a second time.
 */
const ruleBody = (schema: z.ZodType): NonNullable<RouteDoc['rawBody']> => ({
  contentTypes: ['application/json'],
  description:
    'The whole rule: a field left out is off (or "all" for a filter). A 422 names every bad field, including a room the workspace does not have and a URL refused under the SSRF rules.',
  schema,
});
const ruleParams = z.object({ id: z.string().meta({ example: 'alr_01m95vcs448p8d8nkpkmbpan9e' }) });
const doc = (summary: string, rest: Omit<RouteDoc, 'summary' | 'tag' | 'security'>): RouteDoc => ({
  summary,
  tag: 'Alerts',
  security: 'bearer',
  ...rest,
});

export function errorAlertsApi(deps: WebDeps): RouteTable {
  const { db, box } = deps;
  const routes = routeTable();
  const read = tokenScope(deps, 'tenant:read');
  const write = tokenScope(deps, 'tenant:write');

  routes.get(
    '/',
    {
      access: read,
      doc: doc('Get the first alert rule', {
        description:
          'The workspace’s first error alert rule, as it was when a workspace had one (see /error-alerts/rules for all). Never carries the signing secret.',
        responses: { 200: { description: 'The rule.', schema: errorAlertRulesJsonSchema } },
      }),
    },
    async (_req, res) => {
      const { workspace } = apiAuth(res);
      res.json(errorAlertRulesJson(await findErrorAlertSettings(db, workspace.id)));
    },
  );

  routes.put(
    '/',
    {
      access: write,
      before: [requireJsonBody],
      doc: doc('Replace the first alert rule', {
        description:
          'Replaces the first rule’s triggers, room, URL and environments (creating it when there is none); its name and other filters stay.',
        rawBody: ruleBody(errorAlertRulesSchema),
        responses: {
          200: {
            description: 'The rule as saved, with the URL’s signing secret.',
            schema: savedErrorAlertRulesJsonSchema,
          },
        },
      }),
    },
    async (req, res) => {
      const { workspace } = apiAuth(res);
      const input = await validateErrorAlertRules(db, workspace.id, req.body, deps.settings.ssrf);
      const saved = await saveErrorAlertRules(db, box, workspace.id, input, null);
      if (saved.hook && saved.releasedDeliveries) await requestDrain(deps.producer, saved.hook.id);
      res.json({ ...errorAlertRulesJson(saved), signing_secret: saved.secret });
    },
  );

  const noSuchRule = () => new AppError('not_found', 'No such alert rule in this workspace.');

  async function answerSaved(res: Response, saved: SavedErrorAlertRules, status: number) {
    if (saved.hook && saved.releasedDeliveries) await requestDrain(deps.producer, saved.hook.id);
    res.status(status).json({ ...errorAlertRuleJson(saved), signing_secret: saved.secret });
  }

  routes.get(
    '/rules',
    {
      access: read,
      doc: doc('List alert rules', {
        description: 'Every rule, oldest first: the first is the one /error-alerts speaks for.',
        responses: {
          200: {
            description: 'The rules.',
            schema: z.object({ rules: z.array(errorAlertRuleJsonSchema) }),
          },
        },
      }),
    },
    async (_req, res) => {
      const { workspace } = apiAuth(res);
      const rules = await listErrorAlertRules(db, workspace.id);
      res.json({ rules: rules.map(errorAlertRuleJson) });
    },
  );

  routes.post(
    '/rules',
    {
      access: write,
      before: [requireJsonBody],
      doc: doc('Add an alert rule', {
        rawBody: ruleBody(errorAlertRuleSchema),
        responses: {
          201: {
            description: 'The rule, with the URL’s signing secret.',
            schema: savedErrorAlertRuleJsonSchema,
          },
        },
      }),
    },
    async (req, res) => {
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
    },
  );

  routes.get(
    '/rules/:id',
    {
      access: read,
      doc: doc('Get an alert rule', {
        params: ruleParams,
        responses: { 200: { description: 'The rule.', schema: errorAlertRuleJsonSchema } },
      }),
    },
    async (req, res) => {
      const { workspace } = apiAuth(res);
      const found = await findErrorAlertRule(db, workspace.id, String(req.params.id));
      if (!found) throw noSuchRule();
      res.json(errorAlertRuleJson(found));
    },
  );

  routes.put(
    '/rules/:id',
    {
      access: write,
      before: [requireJsonBody],
      doc: doc('Replace an alert rule', {
        params: ruleParams,
        rawBody: ruleBody(errorAlertRuleSchema),
        responses: {
          200: {
            description: 'The rule as saved, with the URL’s signing secret.',
            schema: savedErrorAlertRuleJsonSchema,
          },
        },
      }),
    },
    async (req, res) => {
      const { workspace } = apiAuth(res);
      const id = String(req.params.id);
      if (!(await findErrorAlertRule(db, workspace.id, id))) throw noSuchRule();
      const input = await validateErrorAlertRule(
        db,
        workspace.id,
        id,
        req.body,
        deps.settings.ssrf,
      );
      const saved = await saveErrorAlertRule(db, box, workspace.id, id, input, null);
      if (!saved) throw noSuchRule();
      await answerSaved(res, saved, 200);
    },
  );

  routes.delete(
    '/rules/:id',
    {
      access: write,
      doc: doc('Delete an alert rule', {
        params: ruleParams,
        responses: { 204: { description: 'Deleted.' } },
      }),
    },
    async (req, res) => {
      const { workspace } = apiAuth(res);
      if (!(await deleteErrorAlertRule(db, workspace.id, String(req.params.id))))
        throw noSuchRule();
      res.status(204).end();
    },
  );

  return routes;
}
