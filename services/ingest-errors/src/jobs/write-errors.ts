import { UnrecoverableError } from 'bullmq';
import { sql } from 'kysely';
import { newId, type Logger } from '@ferry/core';
import {
  ERROR_GROUP_ENVIRONMENTS_MAX,
  WRITER_COUNTS_SETTING,
  type Db,
  type ErrorGroup,
  type Tx,
} from '@ferry/db';
import type { JobPayload } from '@ferry/queues';
import { queuedReportSchema, type QueuedReport } from '../queued.js';
import { prepareReport, type WritableReport } from '../prepare-report.js';
import { insertOccurrences } from './insert-occurrences.js';
import {
  addRetainedOccurrences,
  contextTags,
  alertFacets,
  culprit,
  detailTags,
  holdOffMerges,
  linkOccurrencesToTickets,
  mergedFingerprintKey,
  mergedFingerprintTargets,
  notifyRegressedAssignees,
  occurrenceRelease,
  recordSeenReleases,
  reopenOnNewerRelease,
  occurrencesCounted,
  raiseErrorAlerts,
  emitWorkspaceEvents,
  errorWriterEvents,
  readAlertRules,
  readFingerprintRules,
  spikeCountsOnInsert,
  spikeCountsOnUpsert,
  spikeRecent,
  spikeWindows as spikeWindowsOf,
  type AlertCandidate,
  type SpikeWindow,
  type ErrorsAnnouncer,
  type Symbolicator,
  type WorkspaceErrorsWritten,
} from '@ferry/workspace';
import { pruneOccurrences, shouldPrune } from '../retention.js';

/**
 * What the group page's tag breakdown counts and search's `key:value` reads, as jsonb; null
 * without any: a Sentry event's (detailTags), or a native report's context.tags (contextTags).
 */
function tagsJson(report: WritableReport): string | null {
  const tags = report.detail ? detailTags(report.detail) : contextTags(report.context);
  return tags ? JSON.stringify(tags) : null;
}

export interface WriteErrorsDeps {
  db: Db;
  logger: Logger;
  /**
   * Maps minified frames through the workspace's source maps before the fingerprint (issue 41);
   * one per process, so its cache of parsed maps is shared. Without it frames stay as sent.
   */
  symbolicator?: Symbolicator;
  /** ERROR_RETENTION_LIMIT. */
  retentionLimit: number;
  /** Injected by tests to force or skip the random pruning draw. */
  random?: () => number;
  /**
   * Injected by tests: runs inside the batch's transaction right after its occurrences INSERT
   * (to show what the batch has locked by then).
   */
  afterInsert?: () => Promise<void>;
  /** PUBLIC_URL, for the links in error alerts (relative links without it). */
  publicUrl?: string;
  /**
   * Tells open Errors pages what each committed batch wrote (packages/workspace errors-live.ts);
   * without it (tests of the writer alone) nothing is announced.
   */
  announcer?: ErrorsAnnouncer;
}

export interface WriteResult {
  /** Occurrences actually inserted (a retried job inserts none of those already there). */
  inserted: number;
  pruned: number;
}

function parseReports(reports: readonly Record<string, unknown>[]): QueuedReport[] {
  return reports.map((raw, index) => {
    const parsed = queuedReportSchema.safeParse(raw);
    if (!parsed.success) {
      // Our own producer wrote it; a retry cannot fix it.
      throw new UnrecoverableError(
        `error-ingest report ${index} is malformed: ${parsed.error.message}`,
      );
    }
    return parsed.data;
  });
}

/**
 * Test-only fault injection for the kill test: with NODE_ENV=test and
 * FERRY_INGEST_CRASH=<point>:<n>, the process SIGKILLs itself when the batch holding its nth job
 * (counting jobs, not batches) reaches `point`: `after-insert` (a batch's occurrences inserted,
 * its transaction not committed: Postgres rolls all of it back) or `after-commit` (the batch is
 * written, but BullMQ never hears of its jobs: their retries must not count them twice). Those are
 * the two windows a worker killed mid-batch leaves behind.
 */
type CrashPoint = 'after-insert' | 'after-commit';

function crashHook(): (point: CrashPoint, jobs: number) => Promise<void> {
  const [at, n] = (process.env.FERRY_INGEST_CRASH ?? '').split(':');
  const after = Number(n);
  if (process.env.NODE_ENV !== 'test' || !(after > 0)) return () => Promise.resolve();
  let reached = 0;
  return async (point, jobs) => {
    if (point !== at) return;
    reached += jobs;
    if (reached < after) return;
    process.kill(process.pid, 'SIGKILL');
    await new Promise(() => undefined); // nothing else runs while the signal lands
  };
}

const crash = crashHook();

/** One job's payload with its reports checked: what a batch is made of. */
export interface ParsedJob {
  workspaceId: string;
  visitorId: string | null;
  receivedAt: string;
  reports: QueuedReport[];
}

/** Checks a job's reports (UnrecoverableError when one is malformed: a retry cannot fix it). */
export function parseJob(payload: JobPayload<'error-ingest'>): ParsedJob {
  return {
    workspaceId: payload.workspaceId,
    visitorId: payload.visitorId ?? null,
    receivedAt: payload.receivedAt ?? new Date().toISOString(),
    reports: parseReports(payload.reports),
  };
}

/**
 * A group's (workspace, fingerprint) key: merge-lock.ts's, since a merge target is looked up by it.
 * Made once per report (Placed.key) and per group (GroupBatch.key), not at each lookup: every new
 * string is flattened and hashed again by the Map, and a batch looks each report up six times
 * (issue 48: hashing and flattening went from 3.7 % to 2.2 % of the writer thread).
 */
const groupKey = mergedFingerprintKey;

interface GroupBatch {
  workspaceId: string;
  fingerprint: string;
  /** groupKey(workspaceId, fingerprint). */
  key: string;
  /** The report with the latest occurred_at: its class, message and source become the group's. */
  latest: WritableReport;
  /** The report with the earliest occurred_at: its release is the group's first (issue 43). */
  earliest: WritableReport;
  firstSeen: string;
  /** latest's and earliest's occurred_at in ms: each report's time is parsed once (issue 48). */
  latestAt: number;
  earliestAt: number;
  /** Reports of the batch in this group. */
  n: number;
  /** The batch's reports in this group per environment named (spike rules filter by it). */
  environments: Map<string, number>;
  /** The batch's reports in this group: alert rules filter on them (alertFacets). */
  reports: WritableReport[];
}

interface Placed {
  workspaceId: string;
  report: WritableReport;
  /** groupKey(workspaceId, report.fingerprint). */
  key: string;
}

/** The batch's groups, sorted by (workspace_id, fingerprint): the order every writer locks them in. */
function byGroup(placed: readonly Placed[]): GroupBatch[] {
  const groups = new Map<string, GroupBatch>();
  for (const { workspaceId, report, key } of placed) {
    const group = groups.get(key);
    const at = Date.parse(report.occurred_at);
    if (!group) {
      groups.set(key, {
        workspaceId,
        fingerprint: report.fingerprint,
        key,
        latest: report,
        earliest: report,
        firstSeen: report.occurred_at,
        latestAt: at,
        earliestAt: at,
        n: 1,
        environments: new Map(report.environment ? [[report.environment, 1]] : []),
        reports: [report],
      });
      continue;
    }
    group.n += 1;
    group.reports.push(report);
    if (report.environment) {
      group.environments.set(
        report.environment,
        (group.environments.get(report.environment) ?? 0) + 1,
      );
    }
    if (at > group.latestAt) {
      group.latest = report;
      group.latestAt = at;
    }
    if (at < group.earliestAt) {
      group.firstSeen = report.occurred_at;
      group.earliest = report;
      group.earliestAt = at;
    }
  }
  return [...groups.values()].sort((a, b) => compare(a, b));
}

function compare(a: GroupBatch, b: GroupBatch): number {
  if (a.workspaceId !== b.workspaceId) return a.workspaceId < b.workspaceId ? -1 : 1;
  return a.fingerprint < b.fingerprint ? -1 : a.fingerprint > b.fingerprint ? 1 : 0;
}

/** What the upsert left of one group, read from the same statement (issue 26's alert triggers). */
interface UpsertedGroup {
  id: string;
  /** Inserted by this statement: the group's first occurrence (`xmax = 0`). */
  created: boolean;
  /** This statement moved it from resolved to unresolved (it set regressed_at to now()). */
  regressed: boolean;
  status: ErrorGroup['status'];
  /** Set when resolved "in next release": the writer then compares releases (issue 43). */
  resolved_in_release: string | null;
  error_class: string;
  latest_message: string;
  occurrence_count: string | number | bigint;
  first_seen_at: Date;
  last_seen_at: Date;
  /** After this write: the earlier environments and the batch's (event webhooks show them). */
  environments: string[];
  /** The group's occurrences in its spike rule's window, this batch's included; null: no rule. */
  spike_recent: number | null;
}

/** Of a group's reports in the batch, those its workspace's spike rule counts. */
function spikeCounted(group: GroupBatch, window: SpikeWindow | undefined): number {
  return window ? occurrencesCounted(window.environments, group.n, group.environments) : 0;
}

/**
 * Writes each group of the batch with the batch's reports counted in (count, first/last seen,
 * latest class/message/source), as if every report were new; returns (workspace, fingerprint)
 * key -> what the statement left of the group. One statement and one new row version per group.
 * Reports a re-run job finds already stored are taken back out by uncount(). Rows go in
 * (workspace_id, fingerprint) order, so two batches lock the groups they share in the same order
 * and cannot deadlock.
 *
 * `create` inserts groups the batch found missing and skips one another batch created meanwhile
 * (its caller counts that one with the rest): it locks no row but those it inserts, which no other
 * batch can hold. `count` upserts groups that exist, locking them until the commit.
 *
 * Triage rides in the same statement (issue #13): a resolved group that gets an occurrence goes
 * back to unresolved with `regressed_at` set; an ignored group stays ignored and keeps counting.
 * The group's environments gain the batch's (sorted, distinct, capped: the public key lets anyone
 * name environments, so a group must not grow without bound).
 */
async function upsertGroups(
  tx: Tx,
  groups: readonly GroupBatch[],
  spikeWindows: ReadonlyMap<string, SpikeWindow>,
  mode: 'create' | 'count',
): Promise<Map<string, UpsertedGroup>> {
  if (groups.length === 0) return new Map();
  const rows = await tx
    .insertInto('error_groups')
    .values(
      groups.map((group) => ({
        id: newId('errorGroup'),
        workspace_id: group.workspaceId,
        fingerprint: group.fingerprint,
        error_class: group.latest.error_class,
        latest_message: group.latest.message,
        source: group.latest.source,
        occurrence_count: group.n,
        first_seen_at: group.firstSeen,
        last_seen_at: group.latest.occurred_at,
        environments: [...group.environments.keys()].sort().slice(0, ERROR_GROUP_ENVIRONMENTS_MAX),
        // Set on creation only: a group keeps saying which rule made it (issue 43).
        fingerprint_rule: group.latest.fingerprintRule ?? null,
        first_release: occurrenceRelease(group.earliest),
        last_release: occurrenceRelease(group.latest),
        // Issue 26's spike counts ride in the same row version (migration 2026_11_27_0100).
        ...spikeCountsOnInsert(
          spikeWindows.get(group.workspaceId),
          spikeCounted(group, spikeWindows.get(group.workspaceId)),
        ),
      })),
    )
    .onConflict((oc) => {
      const conflict = oc.columns(['workspace_id', 'fingerprint']);
      if (mode === 'create') return conflict.doNothing();
      return conflict.doUpdateSet({
        occurrence_count: sql`error_groups.occurrence_count + excluded.occurrence_count`,
        first_seen_at: sql`least(error_groups.first_seen_at, excluded.first_seen_at)`,
        last_seen_at: sql`greatest(error_groups.last_seen_at, excluded.last_seen_at)`,
        error_class: sql`case when excluded.last_seen_at >= error_groups.last_seen_at
          then excluded.error_class else error_groups.error_class end`,
        latest_message: sql`case when excluded.last_seen_at >= error_groups.last_seen_at
          then excluded.latest_message else error_groups.latest_message end`,
        source: sql`case when excluded.last_seen_at >= error_groups.last_seen_at
          then excluded.source else error_groups.source end`,
        // Issue 43: the release of the first occurrence seen with one, and of the latest.
        first_release: sql`coalesce(error_groups.first_release, excluded.first_release)`,
        last_release: sql`case when excluded.last_seen_at >= error_groups.last_seen_at
          then coalesce(excluded.last_release, error_groups.last_release)
          else error_groups.last_release end`,
        // These read the row as it was before this update, so the reopen and its time agree. A
        // group resolved "in next release" is left to reopenOnNewerRelease (it compares releases).
        status: sql`case when error_groups.status = 'resolved' and error_groups.resolved_in_release is null
          then 'unresolved' else error_groups.status end`,
        regressed_at: sql`case when error_groups.status = 'resolved' and error_groups.resolved_in_release is null
          then now() else error_groups.regressed_at end`,
        regressed_in_release: sql`case when error_groups.status = 'resolved' and error_groups.resolved_in_release is null
          then excluded.last_release else error_groups.regressed_in_release end`,
        // Those it has are kept first, then the batch's new ones up to the cap, then sorted.
        environments: sql`case when excluded.environments <@ error_groups.environments
            or cardinality(error_groups.environments) >= ${sql.lit(ERROR_GROUP_ENVIRONMENTS_MAX)}
          then error_groups.environments
          else array(select e from unnest((error_groups.environments || array(
              select x from unnest(excluded.environments) as x
              where x <> all(error_groups.environments) order by x
            ))[1:${sql.lit(ERROR_GROUP_ENVIRONMENTS_MAX)}]) as e order by e)
          end`,
        ...spikeCountsOnUpsert,
      });
    })
    .returning([
      'id',
      'workspace_id',
      'fingerprint',
      'status',
      'resolved_in_release',
      'error_class',
      'latest_message',
      'occurrence_count',
      'first_seen_at',
      'last_seen_at',
      'environments',
      // xmax is 0 on a row version this statement inserted; an updated one carries our xid.
      sql<boolean>`xmax = 0`.as('created'),
      // now() is the transaction's start: only this statement's reopen set regressed_at to it.
      sql<boolean>`xmax <> 0 and status = 'unresolved' and regressed_at = now()`.as('regressed'),
      spikeRecent,
    ])
    .execute();
  return new Map(rows.map((row) => [groupKey(row.workspace_id, row.fingerprint), row]));
}

/**
 * The ids of the batch's groups that exist already, by (workspace, fingerprint) key: a plain read,
 * no row lock (the counting upsert takes those at the end of the transaction).
 */
async function existingGroupIds(
  tx: Tx,
  groups: readonly GroupBatch[],
): Promise<Map<string, string>> {
  if (groups.length === 0) return new Map();
  const { rows } = await sql<{ id: string; workspace_id: string; fingerprint: string }>`
    select g.id, g.workspace_id, g.fingerprint
    from unnest(${groups.map((group) => group.workspaceId)}::text[],
                ${groups.map((group) => group.fingerprint)}::text[]) as k(workspace_id, fingerprint)
    join error_groups g on g.workspace_id = k.workspace_id and g.fingerprint = k.fingerprint`.execute(
    tx,
  );
  return new Map(rows.map((row) => [groupKey(row.workspace_id, row.fingerprint), row.id]));
}

function countByWorkspace(placed: readonly Placed[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { workspaceId } of placed) counts.set(workspaceId, (counts.get(workspaceId) ?? 0) + 1);
  return counts;
}

/**
 * Writes many `error-ingest` jobs in ONE transaction (the worker's group commit gathers them;
 * see worker.ts): the groups the batch is first to see created; one multi-row occurrences INSERT
 * idempotent on the ids given at accept time (ON CONFLICT DO NOTHING RETURNING); then the shared
 * rows, last so that they stay locked for the shortest time: the existing groups upserted in
 * (workspace_id, fingerprint) order with the batch's counts, first/last seen and latest message,
 * the reports that the INSERT did not return (already stored) taken back out of the counts, alerts
 * raised, the workspaces' retained counters added to; one commit. So a job retried after a crash
 * (or run twice, alone or in another batch) neither duplicates occurrences nor counts them twice.
 * Then, sometimes, pruning of the workspaces over their limit. Returns one result per job, in
 * order. If it throws, nothing of the batch was written. Before any of it, the batch takes its
 * workspaces' merge lock (shared) and files reports of merged fingerprints under the group that
 * holds them (issue 43; underMergedTargets).
 */
export async function writeErrorBatch(
  deps: WriteErrorsDeps,
  jobs: readonly ParsedJob[],
): Promise<WriteResult[]> {
  const results: WriteResult[] = jobs.map(() => ({ inserted: 0, pruned: 0 }));
  const queued: (Omit<Placed, 'report' | 'key'> & {
    queued: QueuedReport;
    job: number;
    visitorId: string | null;
    receivedAt: string;
  })[] = [];
  // The same job twice in one batch (only if its lock was lost and BullMQ handed it out again):
  // its reports are written and counted once.
  const seen = new Set<string>();
  jobs.forEach((job, index) => {
    for (const report of job.reports) {
      if (seen.has(report.id)) continue;
      seen.add(report.id);
      queued.push({
        workspaceId: job.workspaceId,
        queued: report,
        job: index,
        visitorId: job.visitorId,
        receivedAt: job.receivedAt,
      });
    }
  });
  // Frames mapped and fingerprints computed before the transaction: no lock waits on a map load.
  const fingerprintRules = await readFingerprintRules(deps.db, [
    ...new Set(queued.map((one) => one.workspaceId)),
  ]);
  const prepared = await Promise.all(
    queued.map(async ({ queued: report, ...rest }) => {
      const writable = await prepareReport(
        report,
        rest.workspaceId,
        deps.symbolicator,
        fingerprintRules.get(rest.workspaceId),
      );
      return { ...rest, report: writable, key: groupKey(rest.workspaceId, writable.fingerprint) };
    }),
  );
  const written = jobs.filter((job) => job.reports.length > 0);
  if (prepared.length === 0) return results;

  const { retained, news } = await deps.db.transaction().execute(async (tx) => {
    // First, so no merge of these workspaces runs until the commit (merge-lock.ts).
    const placed = await underMergedTargets(tx, prepared);
    const groups = byGroup(placed);
    const rules = await readAlertRules(tx, [...new Set(groups.map((group) => group.workspaceId))]);
    const spikeWindows = spikeWindowsOf(rules);
    // The shared rows (a group's counts, a workspace's counter) are written last, after the
    // occurrences INSERT, so each is locked only for the end of the transaction and its commit:
    // concurrent batches on the same groups (a hot group, a small workspace) queue for that
    // window alone, not for the whole batch (issue #27 part 3). Groups that exist are only read
    // now; new ones are created now, since the INSERT needs their ids.
    const existing = await existingGroupIds(tx, groups);
    const missing = groups.filter((group) => !existing.has(group.key));
    const created = await upsertGroups(tx, missing, spikeWindows, 'create');
    // Created by another batch since the read: counted below with those that existed.
    const raced = missing.filter((group) => !created.has(group.key));
    for (const [key, id] of await existingGroupIds(tx, raced)) existing.set(key, id);
    const groupIds = new Map(existing);
    for (const [key, row] of created) groupIds.set(key, row.id);
    // This INSERT leaves the workspace counters to addRetainedOccurrences below.
    await sql`select set_config(${WRITER_COUNTS_SETTING}, 'on', true)`.execute(tx);
    const rows = await insertOccurrences(
      tx,
      placed.map(({ workspaceId, report, key, visitorId, receivedAt }) => ({
        id: report.id,
        workspace_id: workspaceId,
        group_id: groupIds.get(key)!,
        visitor_id: visitorId,
        error_class: report.error_class,
        message: report.message,
        backtrace: report.backtrace,
        url: report.url,
        request_method: report.request_method,
        request_path: report.request_path,
        environment: report.environment,
        app_version: report.app_version,
        context: JSON.stringify(report.context),
        detail: report.detail ? JSON.stringify(report.detail) : null,
        tags: tagsJson(report),
        source: report.source,
        occurred_at: report.occurred_at,
        received_at: receivedAt,
      })),
    );
    await crash('after-insert', written.length);
    await deps.afterInsert?.();
    const counted = await upsertGroups(
      tx,
      groups.filter((group) => existing.has(group.key)),
      spikeWindows,
      'count',
    );
    const upserted = new Map([...created, ...counted]);
    const insertedIds = new Set(rows.map((row) => row.id));
    for (const { job, report } of placed) {
      if (insertedIds.has(report.id)) results[job]!.inserted += 1;
    }
    // Already stored (a job run again after a crash past its commit): counted once already.
    const stored = placed.filter(({ report }) => !insertedIds.has(report.id));
    const replayed = byGroup(stored);
    if (stored.length > 0) {
      await uncount(tx, groupIds, replayed, spikeWindows);
      await dropEmptyCreated(tx, created, replayed);
    }
    // After the un-counting, so a replayed job can neither raise an alert nor push a spike.
    const inserted = placed.filter(({ report }) => insertedIds.has(report.id));
    const fresh = byGroup(inserted);
    // Issue 45: a widget visitor's occurrence links its group to their tickets around it.
    await linkOccurrencesToTickets(
      tx,
      inserted.map(({ workspaceId, report, key, visitorId }) => ({
        workspaceId,
        groupId: groupIds.get(key)!,
        visitorId,
        occurredAt: report.occurred_at,
      })),
    );
    await recordSeenReleases(tx, releasesSeen(inserted));
    await reopenHeldGroups(tx, upserted, fresh);
    const candidates = alertCandidates(upserted, fresh, replayed, spikeWindows, rules);
    // Rooms, URLs and hand-offs to the agent are all written as rows and outbox events here.
    // Issue 44: new and reopened groups are workspace events, owed to event endpoints here; an
    // alert rule whose URL is such an endpoint is then not sent the same thing again.
    const endpointDeliveries = await emitWorkspaceEvents(tx, errorWriterEvents(candidates));
    await raiseErrorAlerts(tx, candidates, rules, {
      publicUrl: deps.publicUrl ?? '',
      endpointDeliveries,
    });
    // Issue 43: a reopened group's assignee hears of it (Mentions), in this same commit.
    await notifyRegressedAssignees(
      tx,
      candidates.filter((candidate) => candidate.regressed).map((candidate) => candidate.groupId),
    );
    return {
      retained: await addRetainedOccurrences(tx, countByWorkspace(inserted)),
      news: deps.announcer ? liveNews(upserted, inserted) : [],
    };
  });

  await crash('after-commit', written.length);

  // Committed: one publish for the whole batch, not awaited (announce never rejects; a failure is
  // logged), so the jobs complete as fast as without it.
  if (news.length) void deps.announcer?.announce(news);

  for (const [workspaceId, count] of retained) {
    if (!shouldPrune(count, deps.retentionLimit, deps.random ?? Math.random)) continue;
    // Outside the write transaction: its locks are released, and a failed prune loses nothing
    // (the next one catches up), so it is logged rather than failing the jobs.
    try {
      const pruned = await pruneOccurrences(deps.db, workspaceId, deps.retentionLimit);
      const first = jobs.findIndex((job) => job.workspaceId === workspaceId);
      results[first]!.pruned += pruned;
    } catch (error) {
      deps.logger.warn({ err: error, workspaceId }, 'pruning error occurrences failed');
    }
  }
  return results;
}

/**
 * Issue 43, merge: a report whose fingerprint was merged into a group is filed under that group's
 * fingerprint, so it joins the group with all the usual semantics (count, regression, spikes,
 * alerts, releases), and a replayed job's reports, moved there by the merge, are uncounted there.
 * Takes the batch's workspaces' merge lock (shared) first and holds it to the commit: no merge
 * moves or deletes a group between this read and the batch's writes. Workspaces that never merged
 * cost one lock statement and one empty index read.
 */
async function underMergedTargets<P extends Placed>(tx: Tx, prepared: readonly P[]): Promise<P[]> {
  await holdOffMerges(tx, [...new Set(prepared.map((one) => one.workspaceId))]);
  const pairs = new Map<string, { workspaceId: string; fingerprint: string }>();
  for (const { workspaceId, report, key } of prepared) {
    if (!pairs.has(key)) pairs.set(key, { workspaceId, fingerprint: report.fingerprint });
  }
  const targets = await mergedFingerprintTargets(tx, [...pairs.values()]);
  if (targets.size === 0) return [...prepared];
  return prepared.map((one) => {
    const target = targets.get(one.key);
    return target
      ? {
          ...one,
          report: { ...one.report, fingerprint: target },
          key: groupKey(one.workspaceId, target),
        }
      : one;
  });
}

/** One job alone in its own transaction (writeErrorBatch of one). */
export async function writeErrors(
  deps: WriteErrorsDeps,
  payload: JobPayload<'error-ingest'>,
): Promise<WriteResult> {
  const [result] = await writeErrorBatch(deps, [parseJob(payload)]);
  return result!;
}

/** The releases the batch's new occurrences name, for the release list (issue 43). */
function releasesSeen(inserted: readonly Placed[]) {
  return inserted.flatMap(({ workspaceId, report }) => {
    const version = occurrenceRelease(report);
    return version ? [{ workspaceId, version, occurredAt: report.occurred_at }] : [];
  });
}

/**
 * Groups resolved "in next release" that got new occurrences: reopened when one came on a newer
 * release than they were resolved in (issue 43); `upserted` then says they regressed, so alerts
 * and the assignee hear of it as of any regression. Most batches have none: no query then.
 */
async function reopenHeldGroups(
  tx: Tx,
  upserted: Map<string, UpsertedGroup>,
  fresh: readonly GroupBatch[],
): Promise<void> {
  const held = fresh.flatMap((group) => {
    const row = upserted.get(group.key);
    if (!row || row.status !== 'resolved' || row.resolved_in_release === null) return [];
    const releases = group.reports.flatMap((report) => occurrenceRelease(report) ?? []);
    return [
      {
        workspaceId: group.workspaceId,
        groupId: row.id,
        resolvedIn: row.resolved_in_release,
        releases,
      },
    ];
  });
  if (held.length === 0) return;
  const reopened = await reopenOnNewerRelease(tx, held);
  for (const [key, row] of upserted) {
    if (reopened.has(row.id)) upserted.set(key, { ...row, status: 'unresolved', regressed: true });
  }
}

/** The batch's groups with really new occurrences, as error alerts see them. */
function alertCandidates(
  upserted: ReadonlyMap<string, UpsertedGroup>,
  fresh: readonly GroupBatch[],
  replayed: readonly GroupBatch[],
  spikeWindows: ReadonlyMap<string, SpikeWindow>,
  rules: ReadonlyMap<string, unknown>,
): AlertCandidate[] {
  const replays = new Map(replayed.map((group) => [group.key, group]));
  return fresh.flatMap((group) => {
    const row = upserted.get(group.key);
    if (!row) return [];
    const replay = replays.get(group.key);
    const spikeReplayed = replay ? spikeCounted(replay, spikeWindows.get(group.workspaceId)) : 0;
    return [
      {
        workspaceId: group.workspaceId,
        groupId: row.id,
        created: row.created,
        regressed: row.regressed,
        status: row.status,
        newOccurrences: group.n,
        environments: group.environments,
        groupEnvironments: row.environments,
        // Read only for a workspace with rules: most batches alert nothing.
        facets: rules.has(group.workspaceId) ? group.reports.map(alertFacets) : [],
        recent: row.spike_recent === null ? null : row.spike_recent - spikeReplayed,
        group: {
          id: row.id,
          error_class: row.error_class,
          latest_message: row.latest_message,
          culprit: culprit(group.latest.backtrace),
          environment: group.latest.environment ?? null,
          occurrence_count: Number(row.occurrence_count) - (replay?.n ?? 0),
          first_seen_at: row.first_seen_at.toISOString(),
          last_seen_at: row.last_seen_at.toISOString(),
        },
      },
    ];
  });
}

/**
 * What open Errors pages are told of the batch: per workspace, each group that got really new
 * occurrences (those inserted now, never a replayed job's), how many, whether the batch created
 * it, and how many per environment named. One pass over the inserted reports.
 */
function liveNews(
  upserted: ReadonlyMap<string, UpsertedGroup>,
  inserted: readonly Placed[],
): WorkspaceErrorsWritten[] {
  type Counted = { id: string; n: number; created: boolean; environments: Map<string, number> };
  const workspaces = new Map<string, Map<string, Counted>>();
  for (const { workspaceId, report, key } of inserted) {
    const row = upserted.get(key);
    if (!row) continue;
    let groups = workspaces.get(workspaceId);
    if (!groups) workspaces.set(workspaceId, (groups = new Map<string, Counted>()));
    let group = groups.get(row.id);
    if (!group) {
      group = { id: row.id, n: 0, created: row.created, environments: new Map() };
      groups.set(row.id, group);
    }
    group.n += 1;
    if (report.environment) {
      group.environments.set(
        report.environment,
        (group.environments.get(report.environment) ?? 0) + 1,
      );
    }
  }
  return [...workspaces].map(([workspaceId, groups]) => ({
    workspaceId,
    groups: [...groups.values()].map((g) => ({ ...g, environments: [...g.environments] })),
  }));
}

/**
 * Issue 43: a group this batch created for reports that were all stored already has nothing of
 * its own, and goes again. Only a job replayed after its fingerprint was merged and then unmerged
 * does that: its occurrences stay with the group they were merged into, and the fingerprint has no
 * group until a new occurrence comes. Without merges a replayed job's group always exists.
 */
async function dropEmptyCreated(
  tx: Tx,
  created: ReadonlyMap<string, UpsertedGroup>,
  replayed: readonly GroupBatch[],
): Promise<void> {
  const ids = replayed.flatMap((group) => {
    const row = created.get(group.key);
    return row && Number(row.occurrence_count) === group.n ? [row.id] : [];
  });
  if (ids.length === 0) return;
  await tx.deleteFrom('error_groups').where('id', 'in', ids).execute();
}

/**
 * Takes reports that were already stored back out of their groups' counts (upsertGroups added
 * them), the spike counts' newest slot included (the upsert added them there).
 */
async function uncount(
  tx: Tx,
  groupIds: ReadonlyMap<string, string>,
  stored: readonly GroupBatch[],
  spikeWindows: ReadonlyMap<string, SpikeWindow>,
): Promise<void> {
  const values = stored.map(
    (group) =>
      sql`(${groupIds.get(group.key)!}::text, ${group.n}::bigint, ${spikeCounted(group, spikeWindows.get(group.workspaceId))}::int)`,
  );
  await sql`
    update error_groups g set occurrence_count = g.occurrence_count - v.n,
      spike_slots = case when g.spike_slots is null then null
        else array[greatest(g.spike_slots[1] - v.spike_n, 0)] || g.spike_slots[2:7] end
    from (values ${sql.join(values)}) as v(id, n, spike_n)
    where g.id = v.id`.execute(tx);
}
