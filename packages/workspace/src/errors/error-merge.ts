import { AppError, isId } from '@ferry/core';
import { sql } from 'kysely';
import { ERROR_GROUP_ENVIRONMENTS_MAX, type Db, type ErrorGroup } from '@ferry/db';
import { can } from '../members/capabilities.js';
import type { AssignActor } from './error-assign.js';
import { lockForMerge } from './merge-lock.js';
import { moveErrorLinks } from '../feedback/error-links.js';

/**
 * Merging error groups that are one bug, and splitting a fingerprint back out (issue 43, part 4).
 *
 * A merge moves the sources' occurrences and counts to the target, deletes the sources, and keeps
 * each source's fingerprint in error_group_fingerprints pointing at the target: the error writer
 * reads those rows and files later occurrences of every merged fingerprint under the target, with
 * all the usual semantics (regression, spikes, alerts, releases). Unmerge deletes one such row:
 * the fingerprint's occurrences from then on make (or join) a group of their own; what it brought
 * stays with the target (nothing moves back). Both take the workspace's merge lock exclusively
 * (merge-lock.ts), so no writer batch of the workspace is between its group lookup and its commit.
 *
 * Who may: whoever may triage errors (never a guest), or an API client with tenant:write (its
 * route checks the scope). The rules live here so the page, the API and the bulk actions agree.
 */

/** Who merges: a member (their role decides) or an API client. */
export type MergeActor = AssignActor;

/** At most this many sources per call: the bulk action sends its selection in chunks. */
export const MERGE_SOURCES_MAX = 1000;

/** One fingerprint a group holds: its own (first), or one merged into it. */
export interface GroupFingerprint {
  fingerprint: string;
  /** The group's own fingerprint: it cannot be unmerged. */
  own: boolean;
  /** The merged group's id (its old links lead here); null for the own fingerprint. */
  merged_group_id: string | null;
  /** What the merged group was (the own one: the group's current class and message). */
  error_class: string;
  latest_message: string;
  /** Occurrences that came with it at the merge; null for the own fingerprint. */
  occurrence_count: number | null;
  merged_at: Date | null;
  /** The member who merged it and their name; null for an API client or the own fingerprint. */
  merged_by: string | null;
  merged_by_name: string | null;
}

const NO_GROUP = 'No such error group in this workspace.';

function refuseGuests(actor: MergeActor, what: string): void {
  if (actor.kind === 'member' && !can(actor.role, 'errors.triage')) {
    throw new AppError('forbidden', `Guests cannot ${what} error groups.`);
  }
}

function invalid(field: string, message: string): AppError {
  return new AppError('validation_failed', message, { fields: { [field]: message } });
}

/** The distinct source ids, checked before any lock is taken. */
function checkedSources(targetId: string, sourceIds: readonly string[]): string[] {
  const sources = [...new Set(sourceIds)];
  if (sources.length === 0) throw invalid('group_ids', 'Name at least one group to merge.');
  if (sources.length > MERGE_SOURCES_MAX) {
    throw invalid(
      'group_ids',
      `Merge at most ${MERGE_SOURCES_MAX} groups at a time (${sources.length} were sent).`,
    );
  }
  if (sources.includes(targetId)) {
    throw invalid(
      'group_ids',
      'The target is among the groups to merge: a group cannot merge into itself.',
    );
  }
  return sources;
}

type Spikes = Pick<ErrorGroup, 'spike_slot_seconds' | 'spike_latest_slot' | 'spike_slots'>;

/** Slots moved `by` newer (the oldest fall off the end). */
function shifted(slots: readonly number[], by: number): number[] {
  return slots.map((_, i) => (i - by >= 0 ? slots[i - by]! : 0));
}

/**
 * The target's spike counts with the sources' added, slot by slot aligned on the newest slot, so
 * the merged group's recent burst counts toward its spike rule as one group's would. A source
 * counted in other slots (a rule changed since) cannot be aligned and is left out.
 */
function mergedSpikes(target: Spikes, sources: readonly Spikes[]): Spikes {
  const own = ({ spike_slot_seconds, spike_latest_slot, spike_slots }: Spikes): Spikes => ({
    spike_slot_seconds,
    spike_latest_slot,
    spike_slots,
  });
  let merged = own(target);
  for (const source of sources) {
    if (!source.spike_slots || source.spike_latest_slot === null) continue;
    if (!merged.spike_slots || merged.spike_latest_slot === null) {
      merged = own(source);
      continue;
    }
    if (source.spike_slot_seconds !== merged.spike_slot_seconds) continue;
    const a = Number(merged.spike_latest_slot);
    const b = Number(source.spike_latest_slot);
    const latest = Math.max(a, b);
    const x = shifted(merged.spike_slots, latest - a);
    const y = shifted(source.spike_slots, latest - b);
    merged = {
      spike_slot_seconds: merged.spike_slot_seconds,
      spike_latest_slot: String(latest),
      spike_slots: x.map((n, i) => n + y[i]!),
    };
  }
  return merged;
}

/**
 * The target's row after the merge: counts summed; first and last seen widened; class, message
 * and source of whichever group was seen last; environments as the writer keeps them (its own
 * first, then the others' up to the cap, sorted); the first release of the earliest group that
 * named one and the last release of the latest. Status, assignee and the rest stay the target's.
 */
function mergedTarget(target: ErrorGroup, sources: readonly ErrorGroup[]) {
  const all = [target, ...sources];
  const latest = all.reduce((a, b) => (b.last_seen_at > a.last_seen_at ? b : a));
  const firstSeen = all.reduce((a, b) => (b.first_seen_at < a.first_seen_at ? b : a));
  const withFirst = all.filter((g) => g.first_release !== null);
  const withLast = all.filter((g) => g.last_release !== null);
  const earliestRelease = withFirst.length
    ? withFirst.reduce((a, b) => (b.first_seen_at < a.first_seen_at ? b : a)).first_release
    : null;
  const latestRelease = withLast.length
    ? withLast.reduce((a, b) => (b.last_seen_at > a.last_seen_at ? b : a)).last_release
    : null;
  const others = [...new Set(sources.flatMap((g) => g.environments))]
    .filter((e) => !target.environments.includes(e))
    .sort();
  const environments = [...target.environments, ...others]
    .slice(0, ERROR_GROUP_ENVIRONMENTS_MAX)
    .sort();
  const count = all.reduce((n, g) => n + BigInt(g.occurrence_count), 0n);
  return {
    occurrence_count: count.toString(),
    first_seen_at: firstSeen.first_seen_at,
    last_seen_at: latest.last_seen_at,
    error_class: latest.error_class,
    latest_message: latest.latest_message,
    source: latest.source,
    environments,
    first_release: earliestRelease,
    last_release: latestRelease,
    ...mergedSpikes(target, sources),
  };
}

/**
 * Merges `sourceIds` into `targetId`, in one transaction: their occurrences and counts move to
 * the target, their fingerprints (and those merged into them before) now point at it, their
 * ticket moves to it when it has none, their alert cooldowns and agent hand-off carry over, and
 * they are deleted. Returns the target as it is now and how many groups this call merged.
 *
 * Idempotent for a retried chunk: a source already merged away (into this target or another) is
 * skipped, not counted twice. 403 for a guest; 404 when the target, or a source that was never a
 * group of this workspace, is unknown; 422 for no sources, more than MERGE_SOURCES_MAX, or the
 * target among them.
 */
export async function mergeErrorGroups(
  db: Db,
  input: { workspaceId: string; actor: MergeActor; targetId: string; sourceIds: readonly string[] },
): Promise<{ target: ErrorGroup; merged: number }> {
  const { workspaceId, actor, targetId } = input;
  refuseGuests(actor, 'merge');
  const sourceIds = checkedSources(targetId, input.sourceIds);
  if (!isId(targetId, 'errorGroup')) throw new AppError('not_found', NO_GROUP);
  const unknown = sourceIds.find((id): boolean => !isId(id, 'errorGroup'));
  if (unknown !== undefined) throw new AppError('not_found', `${NO_GROUP} (${unknown})`);

  return db.transaction().execute(async (trx) => {
    await lockForMerge(trx, workspaceId);
    // Rows locked in id order: two statements locking some of the same groups cannot deadlock.
    const rows = await trx
      .selectFrom('error_groups')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', 'in', [targetId, ...sourceIds])
      .orderBy('id')
      .forUpdate()
      .execute();
    const target = rows.find((row) => row.id === targetId);
    if (!target) throw new AppError('not_found', NO_GROUP);
    const sources = rows.filter((row) => row.id !== targetId);
    await checkGone(trx, workspaceId, sourceIds, new Set(sources.map((row) => row.id)));
    if (sources.length === 0) return { target, merged: 0 };
    const ids = sources.map((row) => row.id);

    // The occurrences move (the workspace's retained counter counts inserts and deletes only: an
    // UPDATE leaves it right). Before the delete below, which would cascade to them.
    await trx
      .updateTable('error_occurrences')
      .set({ group_id: target.id })
      .where('workspace_id', '=', workspaceId)
      .where('group_id', 'in', ids)
      .execute();
    // Fingerprints merged into a source before now belong to the target; then the sources' own.
    await trx
      .updateTable('error_group_fingerprints')
      .set({ group_id: target.id })
      .where('group_id', 'in', ids)
      .execute();
    await trx
      .insertInto('error_group_fingerprints')
      .values(
        sources.map((source) => ({
          workspace_id: workspaceId,
          fingerprint: source.fingerprint,
          group_id: target.id,
          merged_group_id: source.id,
          error_class: source.error_class,
          latest_message: source.latest_message,
          occurrence_count: source.occurrence_count,
          merged_by: actor.kind === 'member' ? actor.memberId : null,
        })),
      )
      .execute();
    await carryOver(trx, target.id, ids);
    await trx.deleteFrom('error_groups').where('id', 'in', ids).execute();
    const updated = await trx
      .updateTable('error_groups')
      .set(mergedTarget(target, sources))
      .where('id', '=', target.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { target: updated, merged: sources.length };
  });
}

/**
 * Sources not found as groups must have been merged away already (a retried chunk: skipped);
 * any other is unknown to this workspace, and the merge is refused (404) before it writes.
 */
async function checkGone(
  trx: Db,
  workspaceId: string,
  sourceIds: readonly string[],
  found: ReadonlySet<string>,
): Promise<void> {
  const missing = sourceIds.filter((id) => !found.has(id));
  if (missing.length === 0) return;
  const gone = await trx
    .selectFrom('error_group_fingerprints')
    .select('merged_group_id')
    .where('workspace_id', '=', workspaceId)
    .where('merged_group_id', 'in', missing)
    .execute();
  const merged = new Set(gone.map((row) => row.merged_group_id));
  const unknown = missing.find((id) => !merged.has(id));
  if (unknown !== undefined) throw new AppError('not_found', `${NO_GROUP} (${unknown})`);
}

/**
 * What else names the sources, re-pointed before they are deleted:
 * - their "Fix with agent" ticket: one per group (feedback_error_group_once), so the target takes
 *   the oldest when it has none; the others stay tickets, no longer linked to a group (the
 *   delete's `set null`);
 * - alert cooldowns: the target keeps, per rule and trigger, the latest alert of them all, so a
 *   source that just alerted does not alert again at once as the target;
 * - the agent hand-off (once per group): handed if any of them was;
 * - tickets linked to them (issue 45): linked to the target, counts added.
 */
async function carryOver(trx: Db, targetId: string, ids: readonly string[]): Promise<void> {
  await sql`
    update feedback set error_group_id = ${targetId}
    where id = (select id from feedback where error_group_id = any(${ids}::text[])
                order by created_at, id limit 1)
      and not exists (select 1 from feedback where error_group_id = ${targetId})`.execute(trx);
  await sql`
    insert into error_alert_state (group_id, rule_id, trigger, last_alert_at)
    select ${targetId}, rule_id, trigger, max(last_alert_at)
    from error_alert_state where group_id = any(${ids}::text[])
    group by rule_id, trigger
    on conflict (group_id, rule_id, trigger) do update
      set last_alert_at = greatest(error_alert_state.last_alert_at, excluded.last_alert_at)`.execute(
    trx,
  );
  await sql`
    insert into error_alert_handoffs (group_id, rule_id, handed_at)
    select ${targetId}, rule_id, handed_at from error_alert_handoffs
    where group_id = any(${ids}::text[])
    order by handed_at limit 1
    on conflict (group_id) do nothing`.execute(trx);
  await moveErrorLinks(trx, ids, targetId);
}

/**
 * Splits `fingerprint` back out of the group: its occurrences from now on make a group of their
 * own (or join it, once made); those it brought stay counted here. 403 for a guest, 404 for a
 * group not of the workspace or a fingerprint it does not hold, 422 for the group's own.
 */
export async function unmergeFingerprint(
  db: Db,
  input: { workspaceId: string; actor: MergeActor; groupId: string; fingerprint: string },
): Promise<ErrorGroup> {
  const { workspaceId, actor, groupId, fingerprint } = input;
  refuseGuests(actor, 'unmerge');
  if (!isId(groupId, 'errorGroup')) throw new AppError('not_found', NO_GROUP);
  return db.transaction().execute(async (trx) => {
    await lockForMerge(trx, workspaceId);
    const group = await trx
      .selectFrom('error_groups')
      .selectAll()
      .where('id', '=', groupId)
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirst();
    if (!group) throw new AppError('not_found', NO_GROUP);
    if (fingerprint === group.fingerprint) {
      throw invalid(
        'fingerprint',
        'That is the group’s own fingerprint: only fingerprints merged into it can be unmerged.',
      );
    }
    const removed = await trx
      .deleteFrom('error_group_fingerprints')
      .where('workspace_id', '=', workspaceId)
      .where('fingerprint', '=', fingerprint)
      .where('group_id', '=', group.id)
      .executeTakeFirst();
    if (removed.numDeletedRows === 0n) {
      throw new AppError('not_found', 'This group holds no such merged fingerprint.');
    }
    return group;
  });
}

/** The group page shows this many merged fingerprints (newest merge first); the count says all. */
export const FINGERPRINTS_SHOWN = 100;

/**
 * The fingerprints the group holds: its own first, then those merged into it, newest merge first
 * (at most `limit`), each with what it was, when and by whom it was merged, and how many
 * occurrences came with it. Empty when the group is not the workspace's.
 */
export async function groupFingerprints(
  db: Db,
  workspaceId: string,
  groupId: string,
  options: { limit?: number } = {},
): Promise<GroupFingerprint[]> {
  if (!isId(groupId, 'errorGroup')) return [];
  const group = await db
    .selectFrom('error_groups')
    .select(['fingerprint', 'error_class', 'latest_message'])
    .where('id', '=', groupId)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  if (!group) return [];
  const merged = await db
    .selectFrom('error_group_fingerprints as f')
    .leftJoin('members as m', 'm.id', 'f.merged_by')
    .leftJoin('users as u', 'u.id', 'm.user_id')
    .select([
      'f.fingerprint',
      'f.merged_group_id',
      'f.error_class',
      'f.latest_message',
      'f.occurrence_count',
      'f.merged_at',
      'f.merged_by',
      'u.name as merged_by_name',
    ])
    .where('f.group_id', '=', groupId)
    .where('f.workspace_id', '=', workspaceId)
    .orderBy('f.merged_at', 'desc')
    .orderBy('f.fingerprint')
    .limit(options.limit ?? FINGERPRINTS_SHOWN)
    .execute();
  return [
    {
      fingerprint: group.fingerprint,
      own: true,
      merged_group_id: null,
      error_class: group.error_class,
      latest_message: group.latest_message,
      occurrence_count: null,
      merged_at: null,
      merged_by: null,
      merged_by_name: null,
    },
    ...merged.map((row) => ({
      ...row,
      own: false,
      occurrence_count: Number(row.occurrence_count),
      merged_by_name: row.merged_by_name ?? null,
    })),
  ];
}

/** How many fingerprints were merged into the group (what the page's list may not all show). */
export async function countMergedFingerprints(
  db: Db,
  workspaceId: string,
  groupId: string,
): Promise<number> {
  const row = await db
    .selectFrom('error_group_fingerprints')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('group_id', '=', groupId)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The group now holding a group merged away, for its old links (the page redirects, the API
 * answers the holder); undefined for an id never merged in this workspace.
 */
export async function mergedInto(
  db: Db,
  workspaceId: string,
  groupId: string,
): Promise<string | undefined> {
  if (!isId(groupId, 'errorGroup')) return undefined;
  const row = await db
    .selectFrom('error_group_fingerprints')
    .select('group_id')
    .where('workspace_id', '=', workspaceId)
    .where('merged_group_id', '=', groupId)
    .executeTakeFirst();
  return row?.group_id;
}
