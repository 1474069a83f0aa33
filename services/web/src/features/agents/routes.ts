import type { Request, Response } from 'express';
import { AppError, fieldErrors } from '@ferry/core';
import type { Agent } from '@ferry/db';
import {
  agentSettingsSchema,
  agentStatus,
  can,
  createToken,
  createTokenSchema,
  findToken,
  findAgent,
  listAgents,
  recentWork,
  saveShipPolicy,
  shipPolicy,
  shipPolicySchema,
  checkedTargetUrl,
  updateAgentSettings,
  updateAgentWake,
} from '@ferry/workspace';
import type { WebDeps } from '../../deps.js';
import { flash, noStore, renderPage, seat } from '../../shared/request-context.js';
import { stashOnce, takeOnce } from '../../shared/show-once.js';
import {
  keptText,
  postedFields,
  redirectWithForm,
  takeForm,
  type KeptForm,
} from '../../shared/kept-form.js';
import { agentInstall } from './dispatch-card.js';
import { agentsPage, agentsPath, configurePage, installPage, shipPolicyPage } from './views.js';
import { routeTable, type RouteTable } from '@ferry/http';
import { capability } from '../../shared/access.js';
import { workspaceBase } from '../../shared/layout.js';

const WAKE_TOKEN_MAX = 200;

// The agents pages' forms, as kept-form.ts names them: a refused post comes back (303) to the page
// with the form, which shows the error beside its field and the values as posted.
const SHIP_POLICY_FORM = 'agents.ship-policy';
const settingsForm = (agentId: string) => `agents.settings:${agentId}`;
const wakeForm = (agentId: string) => `agents.wake:${agentId}`;

export function agentRoutes(deps: WebDeps): RouteTable {
  const { db, box, redis, config } = deps;
  const routes = routeTable();
  const admin = capability('settings.manage');
  const tokenMaker = capability('tokens.manage');
  const slots = { redis, box, prefix: config.REDIS_PREFIX };

  routes.get('/', capability('feedback.read'), async (req, res) => {
    const { workspace, member } = seat(res);
    const [agents, policy] = await Promise.all([
      listAgents(db, workspace.id),
      shipPolicy(db, workspace.id),
    ]);
    const data = {
      workspace,
      agents: agents.map((a) => agentStatus(a)),
      policy,
      canConfigure: can(member.role, 'settings.manage'),
      install: agentInstall(config, res),
    };
    await renderPage(req, res, (ctx) => agentsPage(ctx, data));
  });

  // What the Dispatch card polls every 5 s.
  routes.get('/status', capability('feedback.read'), async (_req, res) => {
    const { workspace } = seat(res);
    const agents = (await listAgents(db, workspace.id)).map((a) => agentStatus(a));
    res.set('Cache-Control', 'no-store').json({ agents });
  });

  // The Dispatch card's "Make a platform:dispatch token": a token made as the API tokens page
  // makes one, its value shown once on the install page beside the command.
  routes.post('/dispatch-token', tokenMaker, async (req, res) => {
    const { workspace, member } = seat(res);
    const day = new Date().toISOString().slice(0, 10);
    const input = createTokenSchema.parse({
      name: `Local agent (${day})`,
      scopes: ['platform:dispatch'],
    });
    const { token, raw } = await createToken(db, workspace.id, member.id, input);
    await stashOnce(slots, req.sessionID, token.id, raw);
    res.redirect(303, `${agentsPath(workspace)}/install/${token.id}`);
  });

  routes.get('/install/:tokenId', tokenMaker, async (req, res) => {
    const { workspace } = seat(res);
    const token = await findToken(db, workspace.id, req.params.tokenId);
    if (!token) throw new AppError('not_found', 'No such API token.');
    // Taken first, whatever happens next: the slot is good for one page view only.
    const pending = await takeOnce(slots, req.sessionID, token.id);
    const raw = token.revoked_at ? undefined : pending;
    const install = agentInstall(config, res);
    const tokensUrl = `${workspaceBase(workspace)}/settings/tokens`;
    noStore(res);
    await renderPage(req, res, (ctx) =>
      installPage(ctx, { workspace, token, raw, install, tokensUrl }),
    );
  });

  routes.get('/settings/ship-policy', admin, async (req, res) => {
    const { workspace } = seat(res);
    const kept = takeForm(req, SHIP_POLICY_FORM);
    const policy = await shipPolicy(db, workspace.id);
    const values = {
      max_files: keptText(kept, 'max_files') ?? String(policy.maxFiles),
      max_lines: keptText(kept, 'max_lines') ?? String(policy.maxLines),
      always_reviewed: keptText(kept, 'always_reviewed') ?? policy.alwaysReviewed.join('\n'),
    };
    const errors = kept?.errors;
    await renderPage(req, res, (ctx) => shipPolicyPage(ctx, { workspace, values, errors }));
  });

  routes.post('/settings/ship-policy', admin, async (req, res) => {
    const { workspace } = seat(res);
    const body: unknown = req.body ?? {};
    const parsed = shipPolicySchema.safeParse(body);
    if (!parsed.success) {
      const errors: Record<string, string> = {};
      // One message per field: a bad pattern's path (always_reviewed.3) is shown on the textarea.
      for (const [key, message] of Object.entries(fieldErrors(parsed.error))) {
        errors[key.split('.')[0] ?? key] ??= message;
      }
      const values = postedFields(body, ['max_files', 'max_lines', 'always_reviewed']);
      const page = `${agentsPath(workspace)}/settings/ship-policy`;
      redirectWithForm(req, res, page, SHIP_POLICY_FORM, { values, errors });
      return;
    }
    await saveShipPolicy(db, workspace.id, parsed.data);
    flash(req, 'ok', 'The ship policy is saved. It decides every proposal from now on.');
    res.redirect(303, agentsPath(workspace));
  });

  async function agentOf(req: Request, res: Response): Promise<Agent> {
    const { workspace } = seat(res);
    const agent = await findAgent(db, workspace.id, String(req.params.agentId));
    if (!agent) throw new AppError('not_found', 'No such agent in this workspace.');
    return agent;
  }

  const agentPath = (res: Response, agent: Agent) =>
    `${agentsPath(seat(res).workspace)}/${agent.id}`;

  /** The agent's page; a refused settings or wake form shows again with its error and values. */
  async function configure(req: Request, res: Response, agent: Agent): Promise<void> {
    const { workspace } = seat(res);
    const settings = takeForm(req, settingsForm(agent.id));
    const wake = takeForm(req, wakeForm(agent.id));
    const work = await recentWork(db, agent.id);
    const values = {
      name: keptText(settings, 'name'),
      receives_feedback: settings
        ? keptText(settings, 'receives_feedback') !== undefined
        : undefined,
      wake_url: keptText(wake, 'wake_url'),
    };
    const errors = { ...settings?.errors, ...wake?.errors };
    const data = { workspace, agent, status: agentStatus(agent), work, values, errors };
    await renderPage(req, res, (ctx) => configurePage(ctx, data));
  }

  routes.get('/:agentId', admin, async (req, res) => {
    await configure(req, res, await agentOf(req, res));
  });

  routes.post('/:agentId', admin, async (req, res) => {
    const agent = await agentOf(req, res);
    const body: unknown = req.body ?? {};
    const back = (errors: KeptForm['errors']) =>
      redirectWithForm(req, res, agentPath(res, agent), settingsForm(agent.id), {
        values: postedFields(body, ['name', 'receives_feedback']),
        errors,
      });
    const parsed = agentSettingsSchema.safeParse(body);
    if (!parsed.success) return back(fieldErrors(parsed.error));
    try {
      await updateAgentSettings(db, agent, parsed.data);
    } catch (error) {
      if (error instanceof AppError && error.options.fields) return back(error.options.fields);
      throw error;
    }
    flash(req, 'ok', `Saved @${parsed.data.name}.`);
    res.redirect(303, agentPath(res, agent));
  });

  routes.post('/:agentId/wake', admin, async (req, res) => {
    const agent = await agentOf(req, res);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const url = typeof body.wake_url === 'string' ? body.wake_url.trim() : '';
    const token = typeof body.wake_token === 'string' ? body.wake_token : '';
    const errors: Record<string, string> = {};
    // Stored as checked, in its normal form; empty clears it.
    let wakeUrl: string | null = null;
    if (url) {
      const target = await checkedTargetUrl(url, deps.settings.ssrf);
      if (target.ok) wakeUrl = target.url;
      else errors.wake_url = target.problem;
    }
    if (token.length > WAKE_TOKEN_MAX) errors.wake_token = `At most ${WAKE_TOKEN_MAX} characters.`;
    if (Object.keys(errors).length) {
      // The wake token is a secret: never kept in the session, so it is typed again.
      const values = { wake_url: url };
      redirectWithForm(req, res, agentPath(res, agent), wakeForm(agent.id), { values, errors });
      return;
    }
    await updateAgentWake(db, box, agent.id, {
      url: wakeUrl,
      token: body.clear_token ? null : token ? token : undefined,
    });
    flash(req, 'ok', body.clear_token ? 'The wake token is cleared.' : 'Wake settings saved.');
    res.redirect(303, agentPath(res, agent));
  });

  return routes;
}
