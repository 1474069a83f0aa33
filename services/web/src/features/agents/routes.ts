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
  targetUrlProblem,
  updateAgentSettings,
  updateAgentWake,
} from '@ferry/workspace';
import type { WebDeps } from '../../deps.js';
import { flash, noStore, renderPage, seat } from '../../shared/request-context.js';
import { stashOnce, takeOnce } from '../../shared/show-once.js';
import { agentInstall } from './dispatch-card.js';
import { agentsPage, agentsPath, configurePage, installPage, shipPolicyPage } from './views.js';
import { routeTable, type RouteTable } from '@ferry/http';
import { capability } from '../../shared/access.js';
import { workspaceBase } from '../../shared/layout.js';

const WAKE_TOKEN_MAX = 200;

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
    const policy = await shipPolicy(db, workspace.id);
    const values = {
      max_files: String(policy.maxFiles),
      max_lines: String(policy.maxLines),
      always_reviewed: policy.alwaysReviewed.join('\n'),
    };
    await renderPage(req, res, (ctx) => shipPolicyPage(ctx, { workspace, values }));
  });

  routes.post('/settings/ship-policy', admin, async (req, res) => {
    const { workspace } = seat(res);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const parsed = shipPolicySchema.safeParse(body);
    if (!parsed.success) {
      const text = (key: string) => (typeof body[key] === 'string' ? body[key] : '');
      const values = {
        max_files: text('max_files'),
        max_lines: text('max_lines'),
        always_reviewed: text('always_reviewed'),
      };
      const errors: Record<string, string> = {};
      for (const [key, message] of Object.entries(fieldErrors(parsed.error))) {
        errors[key.split('.')[0] ?? key] ??= message;
      }
      await renderPage(req, res, (ctx) => shipPolicyPage(ctx, { workspace, values, errors }), 422);
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

  async function configure(
    req: Request,
    res: Response,
    agent: Agent,
    extra: { values?: { name?: string; wake_url?: string }; errors?: Record<string, string> } = {},
    status = 200,
  ): Promise<void> {
    const { workspace } = seat(res);
    const work = await recentWork(db, agent.id);
    const data = { workspace, agent, status: agentStatus(agent), work, ...extra };
    await renderPage(req, res, (ctx) => configurePage(ctx, data), status);
  }

  routes.get('/:agentId', admin, async (req, res) => {
    await configure(req, res, await agentOf(req, res));
  });

  routes.post('/:agentId', admin, async (req, res) => {
    const agent = await agentOf(req, res);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const parsed = agentSettingsSchema.safeParse(body);
    if (!parsed.success) {
      const name = typeof body.name === 'string' ? body.name : '';
      await configure(
        req,
        res,
        agent,
        { values: { name }, errors: fieldErrors(parsed.error) },
        422,
      );
      return;
    }
    try {
      await updateAgentSettings(db, agent, parsed.data);
    } catch (error) {
      if (error instanceof AppError && error.options.fields) {
        const values = { name: parsed.data.name };
        await configure(req, res, agent, { values, errors: error.options.fields }, 422);
        return;
      }
      throw error;
    }
    flash(req, 'ok', `Saved @${parsed.data.name}.`);
    res.redirect(303, `${agentsPath(seat(res).workspace)}/${agent.id}`);
  });

  routes.post('/:agentId/wake', admin, async (req, res) => {
    const agent = await agentOf(req, res);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const url = typeof body.wake_url === 'string' ? body.wake_url.trim() : '';
    const token = typeof body.wake_token === 'string' ? body.wake_token : '';
    const errors: Record<string, string> = {};
    if (url) {
      const problem = await targetUrlProblem(url, deps.settings.ssrf);
      if (problem) errors.wake_url = problem;
    }
    if (token.length > WAKE_TOKEN_MAX) errors.wake_token = `At most ${WAKE_TOKEN_MAX} characters.`;
    if (Object.keys(errors).length) {
      await configure(req, res, agent, { values: { wake_url: url }, errors }, 422);
      return;
    }
    await updateAgentWake(db, box, agent.id, {
      url: url || null,
      token: body.clear_token ? null : token ? token : undefined,
    });
    flash(req, 'ok', body.clear_token ? 'The wake token is cleared.' : 'Wake settings saved.');
    res.redirect(303, `${agentsPath(seat(res).workspace)}/${agent.id}`);
  });

  return routes;
}
