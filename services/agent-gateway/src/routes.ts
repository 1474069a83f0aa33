import type { Router } from 'express';
import express, { type RequestHandler, type Response } from 'express';
import { sql } from 'kysely';
import { z } from 'zod';
import { AppError } from '@ferry/core';
import type { Agent } from '@ferry/db';
import {
  access,
  inputOf,
  mount,
  notFoundHandler,
  routeTable,
  storableBody,
  type MountedTable,
  type RouteDoc,
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
import {
  ackJsonSchema,
  eventJsonSchema,
  heartbeatJsonSchema,
  streamSchema,
  whoamiJsonSchema,
  type WhoamiJson,
} from './api-schemas.js';
import type { AgentGatewayHttpDeps } from './deps.js';
import { nudge, sseFrame } from './streams.js';
import { ackWork, countUnacked, findWork } from './work-log.js';

const agentOf = (res: Response): Agent => (res.locals as { agent: Agent }).agent;

/** No body at all reads as `{}`, as the handlers read it before the schemas were declared. */
const orEmpty = <S extends z.ZodType>(schema: S) =>
  z.preprocess((body: unknown) => body ?? {}, schema);

const heartbeatSchema = orEmpty(
  z.object({
    activity: z
      .string('Must be text.')
      .trim()
      .max(200, 'At most 200 characters.')
      .optional()
      .meta({ example: 'Working on: Pay button does nothing' }),
    // The coding CLI and its version ("claude 2.1.332"); agents before #23 do not send it.
    cli: z
      .string('Must be text.')
      .trim()
      .max(80, 'At most 80 characters.')
      .optional()
      .meta({ example: 'claude 2.1.332' }),
  }),
);
const workIdSchema = z
  .string('Name the work item: "work_id".')
  .regex(/^wrk_[0-9a-z]{26}$/, 'Not a work id.')
  .meta({ example: 'wrk_01m95vcs448p8d8nkpkmbpan9e' });
const ackSchema = orEmpty(z.object({ work_id: workIdSchema }));
const eventSchema = orEmpty(agentEventSchema);

/** What every agent call shares in its description (PROTOCOL.md, "Every request"). */
const AGENT_HEADERS =
  'Every call sends `X-Service-Install-Id` (8 to 64 characters of `A-Za-z0-9_-`, the instance id: a missing or malformed one is a 422), and may send `X-Service-Agent-Name` and `X-Service-Project`; the first call registers the agent.';

function agentDoc(doc: Omit<RouteDoc, 'tag' | 'security'>): RouteDoc {
  // The token is an API token with scope platform:dispatch (SPEC.md, PROTOCOL.md): `bearer`.
  return {
    ...doc,
    tag: 'Agents',
    security: 'bearer',
    description: `${doc.description ?? ''} ${AGENT_HEADERS}`.trim(),
  };
}

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

  routes.get(
    '/whoami',
    {
      access: token,
      doc: {
        summary: 'The token’s workspace and its agents',
        description:
          'Registers nothing: install.sh calls it before an install id exists, to check the token.',
        tag: 'Agents',
        security: 'bearer',
        responses: {
          200: { description: 'The workspace and its agents.', schema: whoamiJsonSchema },
        },
      },
    },
    async (_req, res) => {
      const { workspace } = apiAuth(res);
      const agents = await listAgents(db, workspace.id);
      const answer: WhoamiJson = {
        workspace: { id: workspace.id, name: workspace.name, slug: workspace.slug },
        agents: agents.map((a) => ({ id: a.id, name: a.name, online: agentOnline(a) })),
      };
      res.json(answer);
    },
  );

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
    {
      ...agentCall,
      writes: 'registers the agent on first contact and marks its stream seen',
      doc: agentDoc({
        summary: 'The agent’s live work stream',
        description:
          'Server-Sent Events, open until the client leaves or the token is revoked: `hello`, then every work item not yet acked (sent again on each reconnect and after each heartbeat: the agent dedupes by `work_id`), then new items as they are logged. `Last-Event-ID` may be sent.',
        responses: {
          200: {
            description: 'The event stream.',
            contentType: 'text/event-stream',
            schema: streamSchema,
          },
        },
      }),
    },
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

  routes.post(
    '/heartbeat',
    {
      ...agentCall,
      doc: agentDoc({
        summary: 'Say the agent is alive and what it is doing',
        description:
          'Every 20 s. Online means a stream open and a heartbeat within 60 s; unacked work is sent on the stream again.',
        body: heartbeatSchema,
        responses: { 200: { description: 'Seen.', schema: heartbeatJsonSchema } },
      }),
    },
    async (_req, res) => {
      const agent = agentOf(res);
      const { activity, cli } = inputOf(res.locals, 'body', heartbeatSchema);
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
    },
  );

  routes.post(
    '/ack',
    {
      ...agentCall,
      doc: agentDoc({
        summary: 'Acknowledge a work item',
        description:
          'Once the item is stored on the agent’s side; it is not sent again. Acking twice is fine; a work id that is not this agent’s is a 404.',
        body: ackSchema,
        responses: { 200: { description: 'Acked.', schema: ackJsonSchema } },
      }),
    },
    async (_req, res) => {
      const { work_id } = inputOf(res.locals, 'body', ackSchema);
      if (!(await ackWork(db, agentOf(res).id, work_id))) {
        throw new AppError('not_found', 'This agent has no work item with that id.');
      }
      res.json({ ok: true });
    },
  );

  routes.post(
    '/events',
    {
      ...agentCall,
      doc: agentDoc({
        summary: 'Post progress, a reply or a proposal to a work item’s conversation',
        description:
          '`progress` is a compact chip, `reply` an ordinary message; for a `proposal` the server decides the route (quick fix or pull request) from the workspace’s ship policy and says why. A work id that is not this agent’s is a 404.',
        body: eventSchema,
        responses: { 200: { description: 'The message it became.', schema: eventJsonSchema } },
      }),
    },
    async (_req, res) => {
      const agent = agentOf(res);
      const event = inputOf(res.locals, 'body', eventSchema);
      const work = await findWork(db, agent.id, event.work_id);
      if (!work) throw new AppError('not_found', 'This agent has no work item with that id.');
      res.json({ ok: true, ...(await recordAgentEvent(db, agent, work, event)) });
    },
  );

  return { base: '/agents/v1', table: routes };
}

export function agentGatewayRoutes(deps: AgentGatewayHttpDeps): Router {
  const router = mount(agentGatewayTable(deps));
  // Unknown paths under /agents/v1 answer JSON here, never fall through to the web app.
  router.use(notFoundHandler);
  return router;
}
