import { sql } from 'kysely';
import type { Db } from '@ferry/db';

/**
 * The one lock that keeps merges and the error writer apart (issue 43, merge and unmerge), and
 * the writer's read of the merged fingerprints.
 *
 * A merge moves a group's occurrences and deletes it; a writer batch that had already looked the
 * group up would then insert occurrences pointing at a deleted row (or count a group that is
 * gone). So each writer transaction first takes its workspaces' merge lock SHARED, and a merge or
 * unmerge takes its workspace's EXCLUSIVE: writers never wait on each other for it, a merge waits
 * for the batches of its workspace in flight, and batches that start meanwhile wait for the
 * merge's commit and then see its fingerprint rows. Transaction-scoped: released at commit or
 * rollback, never leaked by a crash.
 *
 * The two-key form (class, workspace hash) keeps these keys apart from the single-bigint keys the
 * rest of Ferry takes (rooms, creation limits): Postgres never confuses the two forms. Two
 * workspaces whose ids hash alike share a key; that only makes a merge wait for more batches.
 */
const MERGE_LOCK_CLASS = 43_004;

/** The writer's side: its batch's workspaces, SHARED, in key order (no lock cycles). */
export async function holdOffMerges(tx: Db, workspaceIds: readonly string[]): Promise<void> {
  if (workspaceIds.length === 0) return;
  await sql`
    select pg_advisory_xact_lock_shared(${sql.lit(MERGE_LOCK_CLASS)}, k)
    from (select distinct hashtext(w) as k from unnest(${[...workspaceIds]}::text[]) as w) keys
    order by k`.execute(tx);
}

/** A merge's or an unmerge's side: its workspace, EXCLUSIVE, until its commit. */
export async function lockForMerge(tx: Db, workspaceId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(${sql.lit(MERGE_LOCK_CLASS)}, hashtext(${workspaceId}))`.execute(
    tx,
  );
}

/** The key mergedFingerprintTargets answers by. */
export const mergedFingerprintKey = (workspaceId: string, fingerprint: string): string =>
  `${workspaceId}\n${fingerprint}`;

/**
 * Of the batch's (workspace, fingerprint) pairs, those merged into a group: pair key
 * (`workspace\nfingerprint`) -> the fingerprint of the group holding it, under which the writer
 * files the report. First one probe per workspace for any merged fingerprint at all: most
 * workspaces never merged, and their batches stop there (≈0.3 ms, against ≈2.5 ms for looking up
 * a 1,000-report batch's pairs). Then the pairs of the workspaces that did, along the primary key.
 *
 * Must run after holdOffMerges, in statements of its own: a statement sees what was committed
 * when it began, and a merge that held the lock commits while holdOffMerges waits.
 */
export async function mergedFingerprintTargets(
  tx: Db,
  pairs: readonly { workspaceId: string; fingerprint: string }[],
): Promise<Map<string, string>> {
  if (pairs.length === 0) return new Map();
  const workspaces = [...new Set(pairs.map((pair) => pair.workspaceId))];
  const { rows: merging } = await sql<{ workspace_id: string }>`
    select w as workspace_id from unnest(${workspaces}::text[]) as w
    where exists (select 1 from error_group_fingerprints f where f.workspace_id = w)`.execute(tx);
  if (merging.length === 0) return new Map();
  const withMerges = new Set(merging.map((row) => row.workspace_id));
  const asked = pairs.filter((pair) => withMerges.has(pair.workspaceId));
  const { rows } = await sql<{ workspace_id: string; fingerprint: string; target: string }>`
    select f.workspace_id, f.fingerprint, g.fingerprint as target
    from unnest(${asked.map((pair) => pair.workspaceId)}::text[],
                ${asked.map((pair) => pair.fingerprint)}::text[]) as k(workspace_id, fingerprint)
    join error_group_fingerprints f
      on f.workspace_id = k.workspace_id and f.fingerprint = k.fingerprint
    join error_groups g on g.id = f.group_id`.execute(tx);
  return new Map(
    rows.map((row) => [mergedFingerprintKey(row.workspace_id, row.fingerprint), row.target]),
  );
}
