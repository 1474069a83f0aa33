import { AppError } from '@ferry/core';
import { can } from '@ferry/workspace';
import { agentsOnlineHistory, deploymentHistory } from './history.js';
import {
  agentsOnlineNow,
  deliveriesPerMinute,
  deploymentHealth,
  ingestPerMinute,
  slowestHooks,
} from './figures.js';
import { retryWorkspaceJob, workspaceFailedJobs } from './jobs.js';
import type { WebDeps } from '../../deps.js';
import { flash, renderPage, seat } from '../../shared/request-context.js';
import { opsFigures, opsPage, opsPath, type OpsData } from './views.js';
import { routeTable, type RouteTable } from '@ferry/http';
import { capability } from '../../shared/access.js';

/** Everything the Ops page shows but the failed jobs, read at one moment. */
async function readOps(deps: WebDeps, workspaceId: string): Promise<OpsData> {
  const at = new Date();
  const now = at.getTime();
  const prefix = deps.config.REDIS_PREFIX;
  const [health, history, ingest, deliveries, slowHooks, agentsNow, agentsHistory] =
    await Promise.all([
      deploymentHealth(deps, now),
      deploymentHistory(deps.redis, prefix, now),
      ingestPerMinute(deps.db, workspaceId, now),
      deliveriesPerMinute(deps.db, workspaceId, now),
      slowestHooks(deps.db, workspaceId, now),
      agentsOnlineNow(deps.db, workspaceId, at),
      agentsOnlineHistory(deps.redis, prefix, workspaceId, now),
    ]);
  return {
    at,
    health,
    history,
    ingest,
    deliveries,
    slowHooks,
    agents: { ...agentsNow, history: agentsHistory },
  };
}

const RETRIED = 'is queued again; it runs with its tries counted from zero.';

export function opsRoutes(deps: WebDeps): RouteTable {
  const routes = routeTable();

  routes.get('/', capability('ops.read'), async (req, res) => {
    const { workspace, member } = seat(res);
    const canRetry = can(member.role, 'ops.retry');
    const [data, failedJobs] = await Promise.all([
      readOps(deps, workspace.id),
      canRetry ? workspaceFailedJobs(deps, workspace.id) : [],
    ]);
    res.set('Cache-Control', 'no-store');
    await renderPage(req, res, (ctx) => opsPage(ctx, { ...data, workspace, failedJobs, canRetry }));
  });

  // What public/ops.js polls every 5 s: the page's numbers and chart paths by key.
  routes.get('/figures', capability('ops.read'), async (_req, res) => {
    const { workspace } = seat(res);
    res.set('Cache-Control', 'no-store').json(opsFigures(await readOps(deps, workspace.id)));
  });

  routes.post('/jobs/:queue/:jobId/retry', capability('ops.retry'), async (req, res) => {
    const { workspace } = seat(res);
    const queue = String(req.params.queue);
    const jobId = String(req.params.jobId);
    const outcome = await retryWorkspaceJob(deps, workspace.id, queue, jobId);
    if (outcome === 'not_found') {
      throw new AppError('not_found', 'No such failed job in this workspace.');
    }
    if (outcome === 'retried') flash(req, 'ok', `Job #${jobId} of ${queue} ${RETRIED}`);
    else flash(req, 'error', `Job #${jobId} of ${queue} is no longer failed: nothing to retry.`);
    res.redirect(303, opsPath(workspace));
  });

  return routes;
}
