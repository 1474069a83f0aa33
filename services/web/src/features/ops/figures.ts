import { sql } from 'kysely';
import { firstIdAt } from '@ferry/core';
import type { Db } from '@ferry/db';
import { allQueueHealth, type Producer, type QueueHealth } from '@ferry/queues';
import { agentOnline, listAgents } from '@ferry/workspace';

/**
 * The Ops page's figures read from tables we already write (no write added to a hot path): error
 * occurrences (accept and store times), webhook attempts, agents, the outbox. Per-minute series
 * cover the last hour, oldest minute first, the current (partial) minute last.
 */
export const OPS_MINUTES = 60;
const MINUTE_MS = 60_000;

/** Minute number (ms since the epoch / 60 000) of `at`. */
export const minuteOf = (at: number): number => Math.floor(at / MINUTE_MS);

/** The minute numbers of the last hour, oldest first, ending with `now`'s. */
export function lastHourMinutes(now: number): number[] {
  const current = minuteOf(now);
  return Array.from({ length: OPS_MINUTES }, (_, i) => current - (OPS_MINUTES - 1) + i);
}

/** One column of grouped rows (`minute` as Postgres' bigint text) onto the hour's minutes. */
function series<R extends { minute: string }>(
  minutes: number[],
  rows: R[],
  column: { [K in keyof R]: R[K] extends number ? K : never }[keyof R],
): number[] {
  const byMinute = new Map(rows.map((row) => [Number(row.minute), Number(row[column])]));
  return minutes.map((minute) => byMinute.get(minute) ?? 0);
}

/** What no tenant owns: every queue's counts and the outbox relay's lag. */
export interface DeploymentHealth {
  queues: QueueHealth[];
  /** Age of the oldest outbox row not yet relayed; 0 when none waits. */
  outboxLagMs: number;
}

export async function outboxLagMs(db: Db, now = Date.now()): Promise<number> {
  // outbox_unsent_idx (seq where sent_at is null): the oldest unsent row is its first entry.
  const oldest = await db
    .selectFrom('outbox')
    .select('created_at')
    .where('sent_at', 'is', null)
    .orderBy('seq')
    .limit(1)
    .executeTakeFirst();
  return oldest ? Math.max(0, now - oldest.created_at.getTime()) : 0;
}

export async function deploymentHealth(
  deps: { db: Db; producer: Producer },
  now = Date.now(),
): Promise<DeploymentHealth> {
  const [queues, lag] = await Promise.all([
    allQueueHealth(deps.producer, now),
    outboxLagMs(deps.db, now),
  ]);
  return { queues, outboxLagMs: lag };
}

export interface IngestSeries {
  /** Reports by the minute their request was accepted (202), once stored. */
  accepted: number[];
  /** Reports by the minute the ingest worker stored them. */
  stored: number[];
}

/**
 * A workspace's error reports per minute. Occurrence ids are given at accept time and sort by it,
 * so `id >= firstIdAt(...)` keeps the scan on error_occurrences_workspace_idx's recent end; the
 * bound starts an hour before the chart so reports stored late (after an outage) still count.
 */
export async function ingestPerMinute(db: Db, workspaceId: string, now = Date.now()) {
  const minutes = lastHourMinutes(now);
  const since = new Date(minutes[0]! * MINUTE_MS);
  const floor = firstIdAt('errorOccurrence', new Date(since.getTime() - 60 * MINUTE_MS));
  const { rows } = await sql<{ minute: string; accepted: number; stored: number }>`
    select minute, sum(accepted)::int as accepted, sum(stored)::int as stored from (
      select floor(extract(epoch from received_at) / 60)::bigint as minute, 1 as accepted, 0 as stored
        from error_occurrences
        where workspace_id = ${workspaceId} and id >= ${floor} and received_at >= ${since}
      union all
      select floor(extract(epoch from stored_at) / 60)::bigint, 0, 1
        from error_occurrences
        where workspace_id = ${workspaceId} and id >= ${floor} and stored_at >= ${since}
    ) counted
    group by minute`.execute(db);
  return {
    accepted: series(minutes, rows, 'accepted'),
    stored: series(minutes, rows, 'stored'),
  } satisfies IngestSeries;
}

export interface DeliverySeries {
  /** Outgoing delivery attempts per minute (each send, first or retry). */
  attempts: number[];
  /** Of those, the ones that failed: no answer, a timeout, or a status outside 2xx. */
  failed: number[];
}

const ATTEMPTS_OF_HOOKS = sql`
  from webhook_attempts a
  join webhook_deliveries d on d.id = a.delivery_id
  join outgoing_webhooks h on h.id = d.hook_id`;

// Attempt ids are made at insert time, so the id bound keeps the scan to the last hour's attempts.
const recentAttemptsOf = (workspaceId: string, since: Date) => sql`
  h.workspace_id = ${workspaceId}
  and a.id >= ${firstIdAt('webhookAttempt', since)}
  and a.attempted_at >= ${since}`;

const FAILED_ATTEMPT = sql`(a.status_code is null or a.status_code not between 200 and 299)`;

export async function deliveriesPerMinute(
  db: Db,
  workspaceId: string,
  now = Date.now(),
): Promise<DeliverySeries> {
  const minutes = lastHourMinutes(now);
  const since = new Date(minutes[0]! * MINUTE_MS);
  const { rows } = await sql<{ minute: string; attempts: number; failed: number }>`
    select floor(extract(epoch from a.attempted_at) / 60)::bigint as minute,
      count(*)::int as attempts,
      (count(*) filter (where ${FAILED_ATTEMPT}))::int as failed
    ${ATTEMPTS_OF_HOOKS}
    where ${recentAttemptsOf(workspaceId, since)}
    group by 1`.execute(db);
  return { attempts: series(minutes, rows, 'attempts'), failed: series(minutes, rows, 'failed') };
}

export interface SlowHook {
  hookId: string;
  roomId: string;
  roomName: string;
  /** Host of the target only: a path or query may hold the receiver's own token. */
  targetHost: string;
  attempts: number;
  failed: number;
  p95Ms: number;
  maxMs: number;
}

/** The workspace's outgoing hooks with the slowest 95th-percentile send in the last hour. */
export async function slowestHooks(
  db: Db,
  workspaceId: string,
  now = Date.now(),
  limit = 5,
): Promise<SlowHook[]> {
  const since = new Date(now - OPS_MINUTES * MINUTE_MS);
  const { rows } = await sql<{
    hook_id: string;
    room_id: string;
    room_name: string;
    target_url: string;
    attempts: number;
    failed: number;
    p95: number;
    max: number;
  }>`
    select h.id as hook_id, h.room_id, r.name as room_name, h.target_url,
      count(*)::int as attempts,
      (count(*) filter (where ${FAILED_ATTEMPT}))::int as failed,
      percentile_cont(0.95) within group (order by a.duration_ms)::float8 as p95,
      max(a.duration_ms)::int as max
    ${ATTEMPTS_OF_HOOKS}
    join rooms r on r.id = h.room_id
    where ${recentAttemptsOf(workspaceId, since)}
    group by h.id, r.name
    order by p95 desc, h.id
    limit ${limit}`.execute(db);
  return rows.map((row) => ({
    hookId: row.hook_id,
    roomId: row.room_id,
    roomName: row.room_name,
    targetHost: hostOf(row.target_url),
    attempts: row.attempts,
    failed: row.failed,
    p95Ms: Math.round(row.p95),
    maxMs: row.max,
  }));
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(invalid URL)';
  }
}

export async function agentsOnlineNow(db: Db, workspaceId: string, now = new Date()) {
  const agents = await listAgents(db, workspaceId);
  return { online: agents.filter((agent) => agentOnline(agent, now)).length, total: agents.length };
}
