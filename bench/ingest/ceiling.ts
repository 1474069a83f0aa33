import { createHash } from 'node:crypto';
import type pg from 'pg';
import { newId } from '@ferry/core';

/**
 * The ceilings for durable ingestion, measured on the same database as the run: how fast plain pg
 * can put the same rows into error_occurrences (multi-row INSERT, triggers and indexes included),
 * and how fast a transaction shaped like one `error-ingest` job goes (the statements writeErrors
 * sends: upsert groups, insert occurrences, update groups, read the counter), one job per
 * transaction versus several jobs per transaction.
 */

const OCCURRENCE_COLUMNS = [
  'id',
  'workspace_id',
  'group_id',
  'error_class',
  'message',
  'backtrace',
  'url',
  'environment',
  'app_version',
  'context',
  'source',
  'occurred_at',
  'received_at',
] as const;

export interface Target {
  workspaceId: string;
  /** Group ids of the workspace (for plain inserts). */
  groupIds: string[];
}

function occurrenceRow(target: Target, n: number): unknown[] {
  const cls = n % target.groupIds.length;
  const now = new Date().toISOString();
  return [
    newId('errorOccurrence'),
    target.workspaceId,
    target.groupIds[cls],
    `BenchError${cls}`,
    `Something failed while handling request ${n}: value was undefined`,
    [
      `at handler (https://app.example.test/assets/app.js:${100 + cls}:17)`,
      'at dispatch (https://app.example.test/assets/vendor.js:2231:9)',
      'at HTMLButtonElement.onclick (https://app.example.test/:1:1)',
    ],
    `https://app.example.test/orders/${n}`,
    'production',
    '1.4.2',
    JSON.stringify({ user_agent: 'bench', attempt: n % 10 }),
    'js',
    now,
    now,
  ];
}

function placeholders(rows: number, columns: number, offset = 0): string {
  return Array.from(
    { length: rows },
    (_, r) =>
      `(${Array.from({ length: columns }, (_, c) => `$${offset + r * columns + c + 1}`).join(', ')})`,
  ).join(', ');
}

/** Runs `tasks` tasks over `connections` clients of `pool`; returns rows per second. */
async function drive(
  pool: pg.Pool,
  connections: number,
  tasks: number,
  task: (client: pg.PoolClient, index: number) => Promise<void>,
): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      const client = await pool.connect();
      try {
        while (next < tasks) await task(client, next++);
      } finally {
        client.release();
      }
    }),
  );
  return (performance.now() - started) / 1000;
}

/** Plain multi-row INSERTs of `rows` occurrences, `batch` per statement (autocommit). */
export async function insertCeiling(
  pool: pg.Pool,
  targets: readonly Target[],
  rows: number,
  batch: number,
  connections: number,
): Promise<number> {
  const statements = Math.ceil(rows / batch);
  const text = `insert into error_occurrences (${OCCURRENCE_COLUMNS.join(', ')})
    values ${placeholders(batch, OCCURRENCE_COLUMNS.length)}`;
  const seconds = await drive(pool, connections, statements, async (client, index) => {
    const target = targets[index % targets.length]!;
    const values = Array.from({ length: batch }, (_, i) =>
      occurrenceRow(target, index * batch + i),
    );
    await client.query(text, values.flat());
  });
  return (statements * batch) / seconds;
}

const fingerprintOf = (cls: number): string =>
  createHash('sha256').update(`bench-job-shaped:${cls}`).digest('hex');

/**
 * Transactions shaped like writeErrors' one job: `jobsPerTx` jobs of 10 reports (each job one
 * workspace, 10 reports over 10 classes) per transaction, at `concurrency` connections. Returns
 * rows per second.
 */
export async function jobShapedCeiling(
  pool: pg.Pool,
  targets: readonly Target[],
  jobs: number,
  jobsPerTx: number,
  concurrency: number,
): Promise<number> {
  const transactions = Math.ceil(jobs / jobsPerTx);
  const seconds = await drive(pool, concurrency, transactions, async (client, index) => {
    const batch = Array.from({ length: jobsPerTx }, (_, j) => {
      const target = targets[(index * jobsPerTx + j) % targets.length]!;
      return { target, reports: Array.from({ length: 10 }, (_, i) => i) };
    });
    // Groups in (workspace, fingerprint) order, as writeErrors does, so transactions cannot deadlock.
    const groups = batch
      .flatMap(({ target, reports }) =>
        reports.map((cls) => ({ workspaceId: target.workspaceId, cls, fp: fingerprintOf(cls) })),
      )
      .sort((a, b) =>
        a.workspaceId === b.workspaceId
          ? a.fp.localeCompare(b.fp)
          : a.workspaceId.localeCompare(b.workspaceId),
      );
    const now = new Date().toISOString();
    await client.query('begin');
    try {
      const groupRows = await client.query<{
        id: string;
        workspace_id: string;
        fingerprint: string;
      }>(
        `insert into error_groups (id, workspace_id, fingerprint, error_class, latest_message, source,
           occurrence_count, first_seen_at, last_seen_at)
         values ${placeholders(groups.length, 9)}
         on conflict (workspace_id, fingerprint) do update set fingerprint = excluded.fingerprint
         returning id, workspace_id, fingerprint`,
        groups.flatMap((g) => [
          newId('errorGroup'),
          g.workspaceId,
          g.fp,
          `BenchError${g.cls}`,
          'message',
          'js',
          0,
          now,
          now,
        ]),
      );
      const groupId = new Map(
        groupRows.rows.map((r) => [`${r.workspace_id}:${r.fingerprint}`, r.id]),
      );
      const occurrences = batch.flatMap(({ target, reports }) =>
        reports.map((cls) => {
          const row = occurrenceRow(target, index * 10 + cls);
          row[2] = groupId.get(`${target.workspaceId}:${fingerprintOf(cls)}`);
          return row;
        }),
      );
      await client.query(
        `insert into error_occurrences (${OCCURRENCE_COLUMNS.join(', ')})
         values ${placeholders(occurrences.length, OCCURRENCE_COLUMNS.length)}
         on conflict (id) do nothing returning id`,
        occurrences.flat(),
      );
      const ids = [...new Set(groupRows.rows.map((r) => r.id))].sort();
      await client.query(
        `update error_groups g set occurrence_count = g.occurrence_count + 1,
           last_seen_at = greatest(g.last_seen_at, $2::timestamptz)
         where g.id = any($1::text[])`,
        [ids, now],
      );
      await client.query(
        'select retained_occurrences from error_workspace_stats where workspace_id = any($1::text[])',
        [batch.map((b) => b.target.workspaceId)],
      );
      await client.query('commit');
    } catch (error) {
      await client.query('rollback');
      throw error;
    }
  });
  return (transactions * jobsPerTx * 10) / seconds;
}
