import type { Router } from 'express';
import express, { type RequestHandler, type Response } from 'express';
import { sql } from 'kysely';
import { z } from 'zod';
import { AppError } from '@ferry/core';
import type { Agent } from '@ferry/db';
import {
  access,
  mount,
  notFoundHandler,
  parseInput,
  routeTable,
  storableBody,
  type MountedTable,
} from '@ferry/http';
import {
  agentOnline,
  apiAuth,
  installIdSchema,
  listAgents,
  registerAgent,
  requireToken,
} from '@ferry/workspace';
import { agentEventSchema, recordAgentEvent } from './agent-events.js';
import { markStreamClosed, markStreamOpen } from './connection-events.js';
import type { AgentGatewayHttpDeps } from './deps.js';
import { nudge, sseFrame } from './streams.js';
import { ackWork, countUnacked, findWork } from './work-log.js';

const agentOf = (res: Response): Agent => (res.locals as { agent: Agent }).agent;

const heartbeatSchema = z.object({
  activity: z.string('Must be text.').trim().max(200, 'At most 200 characters.').optional(),
  // The coding CLI and its version ("claude 2.1.332"); agents before #23 do not send it.
  cli: z.string('Must be text.').trim().max(80, 'At most 80 characters.').optional(),
});
const ackSchema = z.object({
  work_id: z.string('Name the work item: "work_id".').regex(/^wrk_[0-9a-z]{26}$/, 'Not a work id.'),
});

/**
 * /agents/v1 (packages/agent/PROTOCOL.md): the local agents' live connection. Every call carries
 * a `platform:dispatch` token (checked on every call; revoking it also ends the streams opened
 * with it at once, see streams.ts, so the agent's reconnect is refused) and the instance's install
 * id, which registers the agent on first contact.
 */
export function agentGatewayTable(deps: AgentGatewayHttpDeps): MountedTable {
  const routes = routeTable();
  const { db, hub, logger } = deps;
  const prefix = deps.config.REDIS_PREFIX;
  const token = access.scope('platform:dispatch', requireToken(deps, 'platform:dispatch'));
  const body = [express.json({ limit: '256kb' }), storableBody];

  routes.get('/whoami', token, async (_req, res) => {
    const { workspace } = apiAuth(res);
    const agents = await listAgents(db, workspace.id);
    res.json({
      workspace: { id: workspace.id, name: workspace.name, slug: workspace.slug },
      agents: agents.map((a) => ({ id: a.id, name: a.name, online: agentOnline(a) })),
    });
  });

  const identify: RequestHandler = async (req, res, next) => {
    const parsed = installIdSchema.safeParse(req.get('x-service-install-id'));
    if (!parsed.success) {
      const problem = parsed.error.issues[0]?.message ?? 'Required.';
      throw new AppError('validation_failed', `The X-Service-Install-Id header: ${problem}`, {
        fields: { 'X-Service-Install-Id': problem },
      });
    }
    const { workspace, token } = apiAuth(res);
    (res.locals as { agent: Agent }).agent = await registerAgent(db, {
      workspaceId: workspace.id,
      installId: parsed.data,
      name: req.get('x-service-agent-name')?.slice(0, 100),
      project: req.get('x-service-project')?.slice(0, 100),
      tokenId: token.id,
    });
    next();
  };
  // The agent's own calls: its token, then its install id (which registers it on first contact).
  const agentCall = { access: token, before: [...body, identify] };

  routes.get(
    '/stream',
    { ...agentCall, writes: 'registers the agent on first contact and marks its stream seen' },
    async (_req, res) => {
      const agent = agentOf(res);
      const { workspace, token } = apiAuth(res);
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        // nginx-style proxies: do not buffer the stream.
        'x-accel-buffering': 'no',
      });
      res.write('retry: 3000\n\n');
      res.write(
        sseFrame('hello', {
          agent: { id: agent.id, name: agent.name, room_id: agent.room_id },
          workspace: { id: workspace.id, name: workspace.name, slug: workspace.slug },
        }),
      );
      // Connected: the offline episode (and its wake request) is over.
      await markStreamOpen(db, agent);
      const { closed } = hub.open({ agentId: agent.id, tokenId: token.id }, res);
      logger.info({ agentId: agent.id }, 'agent stream opened');
      await closed;
      // The last stream of this agent here: shown as not connected at once, not after the window.
      // Another process holding a stream of it sets it again at its next keepalive.
      if (!hub.agents().includes(agent.id)) {
        await markStreamClosed(db, agent).catch((err: unknown) =>
          logger.warn({ err }, 'marking a closed stream failed'),
        );
      }
      logger.info({ agentId: agent.id }, 'agent stream closed');
    },
  );

  routes.post('/heartbeat', agentCall, async (req, res) => {
    const agent = agentOf(res);
    const { activity, cli } = parseInput(heartbeatSchema, req.body ?? {}, 'heartbeat');
    await db
      .updateTable('agents')
      .set({
        last_heartbeat_at: sql<Date>`now()`,
        activity: activity || null,
        ...(cli ? { cli } : {}),
      })
      .where('id', '=', agent.id)
      .execute();
    const unacked = await countUnacked(db, agent.id);
    // Unacked items go out again, on whichever process holds the stream.
    if (unacked) await nudge(deps.redis, prefix, agent.id, logger, 'resend');
    res.json({ ok: true, unacked });
  });

  routes.post('/ack', agentCall, async (req, res) => {
    const { work_id } = parseInput(ackSchema, req.body ?? {}, 'ack');
    if (!(await ackWork(db, agentOf(res).id, work_id))) {
      throw new AppError('not_found', 'This agent has no work item with that id.');
    }
    res.json({ ok: true });
  });

  routes.post('/events', agentCall, async (req, res) => {
    const agent = agentOf(res);
    const event = parseInput(agentEventSchema, req.body ?? {}, 'event');
    const work = await findWork(db, agent.id, event.work_id);
    if (!work) throw new AppError('not_found', 'This agent has no work item with that id.');
    res.json({ ok: true, ...(await recordAgentEvent(db, agent, work, event)) });
  });

  return { base: '/agents/v1', table: routes };
}

export function agentGatewayRoutes(deps: AgentGatewayHttpDeps): Router {
  const router = mount(agentGatewayTable(deps));
  // Unknown paths under /agents/v1 answer JSON here, never fall through to the web app.
  router.use(notFoundHandler);
  return router;
}
