import { firstIdAt } from '@ferry/core';
import { sql } from 'kysely';
import type { Db, ErrorGroup, ErrorStatus } from '@ferry/db';
import { holdOffMerges } from './merge-lock.js';
import type { EventActor } from '../event-webhooks/index.js';
import { emitGroupsResolved, SYSTEM_ACTOR } from './error-events.js';
import {
  findErrorGroup,
  latestOccurrences,
  OCCURRENCES_PAGE_SIZE,
  OCCURRENCES_SHOWN,
  type OccurrenceWithVisitor,
} from './errors.js';

/**
 * Triage of error groups (issue #13): setting a group's status, the 14-day sparkline of the list,
 * and the group page's pages of occurrences. Reopening a resolved group is not here: the ingest
 * writer does it inside its group upsert, so a batch pays no extra round trip for it.
 */

export const SPARKLINE_DAYS = 14;

/**
 * Sets a group's status (a member's triage, from the page or the API). Any explicit status clears
 * the regression mark: someone has looked at it. Undefined when the group is not the workspace's.
 */
export async function setErrorGroupStatus(
  db: Db,
  workspaceId: string,
  groupId: string,
  status: ErrorStatus,
  actor: EventActor = SYSTEM_ACTOR,
): Promise<ErrorGroup | undefined> {
  const group = await findErrorGroup(db, workspaceId, groupId);
  if (!group) return undefined;
  return db.transaction().execute(async (trx) => {
    const before = await trx
      .selectFrom('error_groups')
      .select('status')
      .where('id', '=', group.id)
      .forUpdate()
      .executeTakeFirst();
    const updated = await trx
      .updateTable('error_groups')
      .set(statusChange(status))
      .where('id', '=', group.id)
      .where('workspace_id', '=', workspaceId)
      .returningAll()
      .executeTakeFirst();
    // Issue 44: resolving is an event (event webhooks), in this same commit.
    if (updated && status === 'resolved' && before?.status !== 'resolved') {
      await emitGroupsResolved(trx, [updated], actor);
    }
    return updated;
  });
}

/**
 * What setting a status writes, for one group or many (bulk actions). A plain status drops a
 * "resolve in next release" hold: the group is triaged anew, and a later plain resolve must
 * reopen on any occurrence again.
 */
function statusChange(status: ErrorStatus) {
  return {
    status,
    status_changed_at: sql<Date>`now()`,
    regressed_at: null,
    resolved_in_release: null,
  };
}

/**
 * Sets the status of many of the workspace's groups at once (a bulk action's chunk), inside the
 * caller's transaction. The rows are locked first in (workspace_id, fingerprint) order, the order
 * the ingest writer locks a batch's groups in, so a chunk and a batch sharing groups wait for
 * each other instead of deadlocking. Returns how many of the ids were the workspace's groups.
 */
export async function setErrorGroupsStatus(
  trx: Db,
  workspaceId: string,
  groupIds: readonly string[],
  status: ErrorStatus,
  actor: EventActor = SYSTEM_ACTOR,
): Promise<number> {
  const locked = await lockGroupsInWriterOrder(trx, workspaceId, groupIds);
  if (locked.length === 0) return 0;
  const updated = await trx
    .with('before', (qb) =>
      qb
        .selectFrom('error_groups')
        .select(['id', 'status'])
        .where('workspace_id', '=', workspaceId)
        .where('id', 'in', locked),
    )
    .updateTable('error_groups')
    .set(statusChange(status))
    .from('before')
    .whereRef('before.id', '=', 'error_groups.id')
    .returningAll('error_groups')
    .returning('before.status as before_status')
    .execute();
  // Issue 44: each group this chunk resolved is an event, in the chunk's commit.
  if (status === 'resolved') {
    const resolved = updated
      .filter((row) => row.before_status !== 'resolved')
      .map(({ before_status: _before, ...group }) => group);
    await emitGroupsResolved(trx, resolved, actor);
  }
  return locked.length;
}

/**
 * Locks the workspace's groups among `groupIds` (FOR UPDATE) in the ingest writer's order and
 * returns their ids: those merged away or never the workspace's are not among them. A merge
 * locks its groups in id order, so the chunk first holds merges off as the writer does (the
 * workspace's merge lock, shared): a merge waits for the chunk, never deadlocks with it.
 */
export async function lockGroupsInWriterOrder(
  trx: Db,
  workspaceId: string,
  groupIds: readonly string[],
): Promise<string[]> {
  if (groupIds.length === 0) return [];
  await holdOffMerges(trx, [workspaceId]);
  const rows = await trx
    .selectFrom('error_groups')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', [...groupIds])
    .orderBy('workspace_id')
    .orderBy('fingerprint')
    .forUpdate()
    .execute();
  return rows.map((row) => row.id);
}

/** The UTC day (midnight) `days - 1` days before `now`'s: the sparkline's first bar. */
function firstDay(now: Date, days: number): Date {
  const day = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return new Date(day - (days - 1) * 86_400_000);
}

/**
 * Retained occurrences per UTC day over the last 14 days (oldest first, today last) for each of
 * the given groups: one grouped query along error_occurrences_group_idx (group_id, occurred_at).
 * Occurrences pruned by retention are no longer counted, so a busy group's old bars can shrink.
 */
export async function occurrenceSparklines(
  db: Db,
  workspaceId: string,
  groupIds: readonly string[],
  now = new Date(),
  days = SPARKLINE_DAYS,
): Promise<Map<string, number[]>> {
  const lines = new Map(groupIds.map((id) => [id, Array.from({ length: days }, () => 0)]));
  if (groupIds.length === 0) return lines;
  const since = firstDay(now, days);
  const rows = await db
    .selectFrom('error_occurrences')
    .select([
      'group_id',
      sql<string>`floor(extract(epoch from occurred_at - ${since}::timestamptz) / 86400)`.as('day'),
      (eb) => eb.fn.countAll<string>().as('n'),
    ])
    .where('group_id', 'in', [...groupIds])
    .where('workspace_id', '=', workspaceId)
    .where('occurred_at', '>=', since)
    .groupBy(['group_id', 'day'])
    .execute();
  for (const row of rows) {
    const day = Number(row.day);
    const line = lines.get(row.group_id);
    // An occurrence dated up to an hour ahead (allowed at ingest) may land past today: count it today.
    if (line && day >= 0) line[Math.min(day, days - 1)]! += Number(row.n);
  }
  return lines;
}

export interface OccurrencePage {
  occurrences: OccurrenceWithVisitor[];
  page: number;
  /** At least 1. */
  pages: number;
  /** Retained occurrences of the group that the pages cover (at most OCCURRENCES_SHOWN). */
  shown: number;
}

/**
 * One page (20, newest first) of a group's latest 100 retained occurrences: SPEC.md shows up to
 * 100 per group, and paging keeps that from being one very long page. A page past the end is
 * empty and says how many pages there are.
 */
export async function occurrencePage(
  db: Db,
  group: Pick<ErrorGroup, 'id' | 'workspace_id'>,
  requested: number,
): Promise<OccurrencePage> {
  const page = Math.max(1, Math.floor(requested));
  const offset = (page - 1) * OCCURRENCES_PAGE_SIZE;
  const [counted, occurrences] = await Promise.all([
    db
      .selectFrom(
        db
          .selectFrom('error_occurrences')
          .select('id')
          .where('group_id', '=', group.id)
          .where('workspace_id', '=', group.workspace_id)
          .limit(OCCURRENCES_SHOWN)
          .as('latest'),
      )
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow(),
    offset >= OCCURRENCES_SHOWN
      ? Promise.resolve([])
      : latestOccurrences(db, group, {
          offset,
          limit: Math.min(OCCURRENCES_PAGE_SIZE, OCCURRENCES_SHOWN - offset),
        }),
  ]);
  const shown = Number(counted.n);
  return {
    occurrences,
    page,
    pages: Math.max(1, Math.ceil(shown / OCCURRENCES_PAGE_SIZE)),
    shown,
  };
}

/** What tells two groups of one class apart in the list: where it broke, and in which release. */
export interface GroupLatestFacts {
  /** The latest occurrence's top backtrace frame. */
  culprit: string | null;
  /** The latest occurrence's app_version. */
  release: string | null;
}

/**
 * Each group's latest retained occurrence's culprit and release, for the list's 25 rows: one
 * lateral read per group along error_occurrences_group_idx (group_id, occurred_at), newest first,
 * so a busy group costs one index step like a quiet one.
 */
export async function groupLatestFacts(
  db: Db,
  workspaceId: string,
  groupIds: readonly string[],
): Promise<Map<string, GroupLatestFacts>> {
  const facts = new Map<string, GroupLatestFacts>();
  if (groupIds.length === 0) return facts;
  const rows = await sql<{
    group_id: string;
    top_frame: string | null;
    app_version: string | null;
  }>`
    select g.id as group_id, latest.top_frame, latest.app_version
    from unnest(${[...groupIds]}::text[]) as g(id)
    cross join lateral (
      select o.backtrace[1] as top_frame, o.app_version
      from error_occurrences o
      where o.group_id = g.id and o.workspace_id = ${workspaceId}
      order by o.occurred_at desc
      limit 1
    ) latest`.execute(db);
  for (const row of rows.rows) {
    facts.set(row.group_id, {
      culprit: row.top_frame?.trim() || null,
      release: row.app_version || null,
    });
  }
  return facts;
}

export interface ErrorsAtAGlance {
  /** Groups first seen since midnight UTC. */
  newToday: number;
  /** Unresolved groups that came back after being resolved. */
  regressions: number;
  /** The three groups with the most occurrences in the last 24 hours. */
  busiest: { id: string; error_class: string; latest_message: string; count: number }[];
}

/**
 * The Dashboard's Errors card. Three small reads; the busiest walks the last day's occurrences along
 * error_occurrences_workspace_idx (workspace_id, id), ids being ordered by arrival.
 */
export async function errorsAtAGlance(
  db: Db,
  workspaceId: string,
  now = new Date(),
): Promise<ErrorsAtAGlance> {
  const midnight = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const dayAgo = new Date(now.getTime() - 24 * 3_600_000);
  const [fresh, regressed, busiest] = await Promise.all([
    db
      .selectFrom('error_groups')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('workspace_id', '=', workspaceId)
      .where('first_seen_at', '>=', midnight)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('error_groups')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('workspace_id', '=', workspaceId)
      .where('status', '=', 'unresolved')
      .where('regressed_at', 'is not', null)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('error_occurrences as o')
      .innerJoin('error_groups as g', 'g.id', 'o.group_id')
      .select([
        'g.id',
        'g.error_class',
        'g.latest_message',
        (eb) => eb.fn.countAll<string>().as('n'),
      ])
      .where('o.workspace_id', '=', workspaceId)
      .where('o.id', '>=', firstIdAt('errorOccurrence', dayAgo))
      .where('g.status', '!=', 'ignored')
      .groupBy(['g.id', 'g.error_class', 'g.latest_message'])
      .orderBy('n', 'desc')
      .orderBy('g.id')
      .limit(3)
      .execute(),
  ]);
  return {
    newToday: Number(fresh.n),
    regressions: Number(regressed.n),
    busiest: busiest.map((row) => ({
      id: row.id,
      error_class: row.error_class,
      latest_message: row.latest_message,
      count: Number(row.n),
    })),
  };
}
