import { sql } from 'kysely';
import { createFerryClient, type paths } from '@ferry/client';
import type { TestContext } from '@ferry/testing';
import { sleep } from '../lib/children.js';
import { log, ms } from '../ingest/stats.js';

/**
 * Issue 43's "bulk resolve of 12,000 groups": POST /api/v1/errors/bulk {action: resolve, q} with
 * the workspace's tenant:write token (README, Bulk actions), then its Location polled with the
 * tenant:read token every 100 ms until the job says done; then a count that no group the search
 * named is left unresolved. Nothing else writes meanwhile, so the count is the job's alone.
 */
export interface BulkFigures {
  q: string;
  total: number;
  changed: number;
  status: string;
  /** POST sent -> its answer (202 with the job's Location for a selection this size). */
  answerMs: number;
  answerStatus: number;
  /** POST sent -> the poll that saw the job done. */
  doneMs: number;
  /** The job's own created_at -> finished_at. */
  jobMs: number | null;
  leftUnresolved: number;
}

/** A bulk action as the API describes it (docs/openapi.json, through the typed client). */
type ActionJson =
  paths['/api/v1/errors/bulk/{actionId}']['get']['responses'][200]['content']['application/json']['action'];

export async function measureBulkResolve(
  ctx: TestContext,
  port: number,
  workspaceId: string,
  tokens: { tenant_write: string; tenant_read: string },
  q: string,
): Promise<BulkFigures> {
  const base = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const writer = createFerryClient(base, tokens.tenant_write);
  const reader = createFerryClient(base, tokens.tenant_read);
  const res = await writer.POST('/api/v1/errors/bulk', { body: { action: 'resolve', q } });
  const answerMs = performance.now() - started;
  if (!res.data) throw new Error(`bulk resolve answered ${res.response.status} without an action`);
  const id = res.data.action.id;
  let action: ActionJson = res.data.action;
  const deadline = Date.now() + 600_000;
  while (action.status === 'queued' || action.status === 'running') {
    if (Date.now() > deadline) throw new Error('the bulk resolve was not done in 10 minutes');
    await sleep(100);
    const poll = await reader.GET('/api/v1/errors/bulk/{actionId}', {
      params: { path: { actionId: id } },
    });
    if (!poll.data) throw new Error(`polling the bulk action answered ${poll.response.status}`);
    action = poll.data.action;
  }
  const doneMs = performance.now() - started;
  const left = await sql<{ n: string }>`select count(*) as n from error_groups
    where workspace_id = ${workspaceId} and status = 'unresolved'`.execute(ctx.db);
  const figures: BulkFigures = {
    q,
    total: action.total,
    changed: action.changed,
    status: action.status,
    answerMs,
    answerStatus: res.response.status,
    doneMs,
    jobMs: action.finished_at
      ? Date.parse(action.finished_at) - Date.parse(action.created_at)
      : null,
    leftUnresolved: Number(left.rows[0]?.n ?? 0),
  };
  log(
    `  ${figures.status}: ${figures.changed} of ${figures.total} groups resolved; answered ` +
      `${figures.answerStatus} in ${ms(answerMs)}, done ${(doneMs / 1000).toFixed(2)} s after the ` +
      `POST (job ${figures.jobMs === null ? '?' : (figures.jobMs / 1000).toFixed(2)} s, ` +
      `${Math.round(figures.total / (doneMs / 1000))} groups/s); unresolved left: ${figures.leftUnresolved}` +
      `${action.error ? `; error: ${action.error}` : ''}`,
  );
  return figures;
}
