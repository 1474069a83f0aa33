import { UnrecoverableError } from 'bullmq';
import { sql } from 'kysely';
import { newId, type Logger } from '@ferry/core';
import type { Db, Tx } from '@ferry/db';
import type { JobPayload } from '@ferry/queues';
import { queuedReportSchema, type QueuedReport } from '../queued.js';
import { pruneOccurrences, retainedOccurrences, shouldPrune } from '../retention.js';

export interface WriteErrorsDeps {
  db: Db;
  logger: Logger;
  /** ERROR_RETENTION_LIMIT. */
  retentionLimit: number;
  /** Injected by tests to force or skip the random pruning draw. */
  random?: () => number;
}

export interface WriteResult {
  /** Occurrences actually inserted (a retried job inserts none of those already there). */
  inserted: number;
  pruned: number;
}

interface GroupBatch {
  fingerprint: string;
  /** The report with the latest occurred_at: its class, message and source become the group's. */
  latest: QueuedReport;
  firstSeen: string;
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
 * FERRY_INGEST_CRASH=<point>:<n>, the process SIGKILLs itself when the nth job reaches `point`:
 * `after-insert` (occurrences inserted, transaction not committed: Postgres rolls it back) or
 * `after-commit` (written, but BullMQ never hears of it: the retry must not count it twice).
 * Those are the two windows a worker killed mid-batch leaves behind.
 */
type CrashPoint = 'after-insert' | 'after-commit';

function crashHook(): (point: CrashPoint) => Promise<void> {
  const [at, n] = (process.env.FERRY_INGEST_CRASH ?? '').split(':');
  const after = Number(n);
  if (process.env.NODE_ENV !== 'test' || !(after > 0)) return () => Promise.resolve();
  let reached = 0;
  return async (point) => {
    if (point !== at || ++reached < after) return;
    process.kill(process.pid, 'SIGKILL');
    await new Promise(() => undefined); // nothing else runs while the signal lands
  };
}

const crash = crashHook();

const later = (a: QueuedReport, b: QueuedReport): boolean =>
  Date.parse(a.occurred_at) > Date.parse(b.occurred_at);

function byGroup(reports: readonly QueuedReport[]): Map<string, GroupBatch> {
  const groups = new Map<string, GroupBatch>();
  for (const report of reports) {
    const group = groups.get(report.fingerprint);
    if (!group) {
      groups.set(report.fingerprint, {
        fingerprint: report.fingerprint,
        latest: report,
        firstSeen: report.occurred_at,
      });
      continue;
    }
    if (later(report, group.latest)) group.latest = report;
    if (Date.parse(report.occurred_at) < Date.parse(group.firstSeen)) {
      group.firstSeen = report.occurred_at;
    }
  }
  return groups;
}

/**
 * Makes sure each group of the batch exists and returns fingerprint -> group id. New groups start
 * at count 0 (the counted update below adds what was really inserted). Rows are upserted in
 * fingerprint order and the no-op DO UPDATE locks existing ones, so two jobs of one workspace lock
 * groups in the same order and cannot deadlock; the later update touches only locked rows.
 */
async function ensureGroups(
  tx: Tx,
  workspaceId: string,
  groups: readonly GroupBatch[],
): Promise<Map<string, string>> {
  const rows = await tx
    .insertInto('error_groups')
    .values(
      groups.map((group) => ({
        id: newId('errorGroup'),
        workspace_id: workspaceId,
        fingerprint: group.fingerprint,
        error_class: group.latest.error_class,
        latest_message: group.latest.message,
        source: group.latest.source,
        occurrence_count: 0,
        first_seen_at: group.firstSeen,
        // The earliest, so the counted update's greatest() and "is this the latest" both work.
        last_seen_at: group.firstSeen,
      })),
    )
    .onConflict((oc) =>
      oc
        .columns(['workspace_id', 'fingerprint'])
        .doUpdateSet({ fingerprint: (eb) => eb.ref('excluded.fingerprint') }),
    )
    .returning(['id', 'fingerprint'])
    .execute();
  return new Map(rows.map((row) => [row.fingerprint, row.id]));
}

/**
 * The `error-ingest` processor: one transaction per job. Occurrences first, idempotent on their
 * ids (given at accept time), and the groups' counts, first/last seen and latest message are
 * updated from the rows that insert actually returned, so a job retried after a crash (or run
 * twice) neither duplicates occurrences nor counts them twice. Then, sometimes, pruning.
 */
export async function writeErrors(
  deps: WriteErrorsDeps,
  payload: JobPayload<'error-ingest'>,
): Promise<WriteResult> {
  const reports = parseReports(payload.reports);
  if (reports.length === 0) return { inserted: 0, pruned: 0 };
  const { workspaceId } = payload;
  const receivedAt = payload.receivedAt ?? new Date().toISOString();
  const groups = [...byGroup(reports).values()].sort((a, b) =>
    a.fingerprint < b.fingerprint ? -1 : a.fingerprint > b.fingerprint ? 1 : 0,
  );

  const { inserted, retained } = await deps.db.transaction().execute(async (tx) => {
    const groupIds = await ensureGroups(tx, workspaceId, groups);
    const rows = await tx
      .insertInto('error_occurrences')
      .values(
        reports.map((report) => ({
          id: report.id,
          workspace_id: workspaceId,
          group_id: groupIds.get(report.fingerprint)!,
          visitor_id: payload.visitorId ?? null,
          error_class: report.error_class,
          message: report.message,
          backtrace: report.backtrace,
          url: report.url,
          request_method: report.request_method,
          request_path: report.request_path,
          environment: report.environment,
          app_version: report.app_version,
          context: JSON.stringify(report.context),
          source: report.source,
          occurred_at: report.occurred_at,
          received_at: receivedAt,
        })),
      )
      .onConflict((oc) => oc.column('id').doNothing())
      .returning('id')
      .execute();
    await crash('after-insert');
    const insertedIds = new Set(rows.map((row) => row.id));
    const fresh = reports.filter((report) => insertedIds.has(report.id));
    if (fresh.length > 0) await countIntoGroups(tx, groupIds, fresh);
    return { inserted: fresh.length, retained: await retainedOccurrences(tx, workspaceId) };
  });

  await crash('after-commit');

  let pruned = 0;
  if (shouldPrune(retained, deps.retentionLimit, deps.random ?? Math.random)) {
    // Outside the write transaction: its locks are released, and a failed prune loses nothing
    // (the next one catches up), so it is logged rather than failing the job.
    try {
      pruned = await pruneOccurrences(deps.db, workspaceId, deps.retentionLimit);
    } catch (error) {
      deps.logger.warn({ err: error, workspaceId }, 'pruning error occurrences failed');
    }
  }
  return { inserted, pruned };
}

/** One statement for all the batch's groups: counts, first/last seen, latest class/message/source. */
async function countIntoGroups(
  tx: Tx,
  groupIds: ReadonlyMap<string, string>,
  fresh: readonly QueuedReport[],
): Promise<void> {
  const values = [...byGroup(fresh).values()].map((group) => {
    const n = fresh.filter((report) => report.fingerprint === group.fingerprint).length;
    return sql`(${groupIds.get(group.fingerprint)!}::text, ${n}::bigint,
      ${group.firstSeen}::timestamptz, ${group.latest.occurred_at}::timestamptz,
      ${group.latest.error_class}::text, ${group.latest.message}::text, ${group.latest.source}::text)`;
  });
  await sql`
    update error_groups g set
      occurrence_count = g.occurrence_count + v.n,
      first_seen_at = least(g.first_seen_at, v.first_seen),
      last_seen_at = greatest(g.last_seen_at, v.last_seen),
      error_class = case when v.last_seen >= g.last_seen_at then v.error_class else g.error_class end,
      latest_message = case when v.last_seen >= g.last_seen_at then v.message else g.latest_message end,
      source = case when v.last_seen >= g.last_seen_at then v.source else g.source end
    from (values ${sql.join(values)}) as v(id, n, first_seen, last_seen, error_class, message, source)
    where g.id = v.id`.execute(tx);
}
