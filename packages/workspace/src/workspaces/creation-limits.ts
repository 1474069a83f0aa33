import { sql } from 'kysely';
import { AppError } from '@ferry/core';
import type { Db } from '@ferry/db';

/**
 * Per-workspace limits on things anyone holding the right seat or token can make in bulk (issue
 * #20 item 9: 150 invite links in 2 s, 200 agents and rooms from one token). Checked inside the
 * domain functions, under a per-workspace lock, so every route gets them and concurrent requests
 * cannot slip past the count. Counted from the tables' `created_at`: exact, and nothing to expire.
 */

/** Invite links: at most this many live (unexpired, unrevoked) and this many made per hour. */
export const INVITE_LIMITS = { live: 50, perHour: 30 } as const;
/** Local agents: at most this many registered (they are never deleted) and this many new per hour. */
export const AGENT_LIMITS = { registered: 50, perHour: 20 } as const;

/** Serialises one kind of creation in one workspace until the transaction ends. */
export async function lockCreations(trx: Db, kind: string, workspaceId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`${kind}:${workspaceId}`}))`.execute(trx);
}

export interface HourlyCount {
  count: number;
  /** Seconds until the oldest of them leaves the hour (a slot frees up). */
  retryAfterSeconds: number;
}

/** What the workspace made in the last hour (by the database's clock, as `created_at` is). */
export async function createdInLastHour(
  trx: Db,
  table: 'agents' | 'workspace_invites',
  workspaceId: string,
): Promise<HourlyCount> {
  const { rows } = await sql<{ count: number; retry_after: number | null }>`
    select count(*)::int as count,
      ceil(extract(epoch from min(created_at) + interval '1 hour' - now()))::int as retry_after
    from ${sql.table(table)}
    where workspace_id = ${workspaceId} and created_at > now() - interval '1 hour'`.execute(trx);
  const row = rows[0];
  return { count: row?.count ?? 0, retryAfterSeconds: Math.max(1, row?.retry_after ?? 1) };
}

/** 429 with Retry-After: the limit frees up by itself; the message says when in words. */
export function hourlyLimitReached(
  limit: number,
  what: string,
  retryAfterSeconds: number,
  meanwhile: string,
): AppError {
  const minutes = Math.ceil(retryAfterSeconds / 60);
  return new AppError(
    'rate_limited',
    `A workspace may make at most ${limit} ${what} an hour: try again in ${minutes} minute${minutes === 1 ? '' : 's'}. ${meanwhile}`,
    { headers: { 'Retry-After': String(retryAfterSeconds) } },
  );
}
