import { sql } from 'kysely';
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

interface ActionJson {
  status: string;
  total: number;
  processed: number;
  changed: number;
  created_at: string;
  finished_at: string | null;
  error?: string | null;
}

export async function measureBulkResolve(
  ctx: TestContext,
  port: number,
  workspaceId: string,
  tokens: { tenant_write: string; tenant_read: string },
  q: string,
): Promise<BulkFigures> {
  const base = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const res = await fetch(`${base}/api/v1/errors/bulk`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tokens.tenant_write}`, 'content-type': 'application/json' },
    body: JSON.stringify({ action: 'resolve', q }),
  });
  const answerMs = performance.now() - started;
  const answered = (await res.json()) as { action?: ActionJson & { id: string } };
  if (!answered.action) throw new Error(`bulk resolve answered ${res.status} without an action`);
  let action: ActionJson = answered.action;
  const deadline = Date.now() + 600_000;
  while (action.status === 'queued' || action.status === 'running') {
    if (Date.now() > deadline) throw new Error('the bulk resolve was not done in 10 minutes');
    await sleep(100);
    const poll = await fetch(`${base}/api/v1/errors/bulk/${answered.action.id}`, {
      headers: { authorization: `Bearer ${tokens.tenant_read}` },
    });
    action = ((await poll.json()) as { action: ActionJson }).action;
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
    answerStatus: res.status,
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
