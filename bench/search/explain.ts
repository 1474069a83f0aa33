import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import pg from 'pg';
import type { Database } from '@ferry/db';
import { log, ms } from '../ingest/stats.js';
import {
  assigneeNames,
  countErrorGroups,
  errorEnvironments,
  groupLatestFacts,
  listErrorGroups,
  occurrenceSparklines,
  retainedOccurrences,
} from '@ferry/workspace';

/**
 * The SQL the Errors page runs for one search, as the product builds it: the page's own domain
 * calls (services/web features/errors/routes.ts: the list with its counts and the search's tag
 * check, the header's counters, the environments, then the shown groups' sparklines, culprits and
 * assignees) on a Kysely that records each compiled query, then EXPLAIN (ANALYZE, BUFFERS) of each
 * with its parameters. What the bench prints of a plan: its execution time and every scan of
 * error_groups / error_occurrences (how, along which index, rows out and rows thrown away), so a
 * sequential scan, or an index probe that reads other workspaces' rows only to drop them, shows.
 */
export interface ScanLine {
  node: string;
  relation: string;
  index: string | null;
  rows: number;
  /** Rows the node read and dropped: by its filter, or by a lossy/trigram index's recheck. */
  removed: number;
}

export interface ExplainedQuery {
  /** The statement's first words, to tell it from the others. */
  label: string;
  executionMs: number;
  scans: ScanLine[];
  /** A Seq Scan of error_groups or error_occurrences. */
  seqScan: boolean;
  text: string;
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

const WATCHED = new Set(['error_groups', 'error_occurrences']);

function scansOf(node: PlanNode, out: ScanLine[] = []): ScanLine[] {
  const loops = node['Actual Loops'] ?? 1;
  // A Bitmap Index Scan names no relation: its index says which.
  const relation =
    node['Relation Name'] ??
    (node['Index Name']?.startsWith('error_occ')
      ? 'error_occurrences'
      : node['Index Name']?.startsWith('error_groups')
        ? 'error_groups'
        : undefined);
  if (relation && WATCHED.has(relation)) {
    out.push({
      node: node['Node Type'],
      relation,
      index: node['Index Name'] ?? null,
      rows: (node['Actual Rows'] ?? 0) * loops,
      removed:
        ((node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) *
        loops,
    });
  }
  for (const child of node.Plans ?? []) scansOf(child, out);
  return out;
}

function labelOf(sqlText: string): string {
  return sqlText.replace(/\s+/g, ' ').trim().slice(0, 90);
}

/** The compiled queries of one page view of `q` in the workspace, as the route makes them. */
async function pageQueries(
  databaseUrl: string,
  workspaceId: string,
  memberId: string,
  q: string,
): Promise<CompiledQuery[]> {
  const compiled: CompiledQuery[] = [];
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    log: (event) => {
      if (event.level === 'query') compiled.push(event.query);
    },
  });
  try {
    const [list] = await Promise.all([
      listErrorGroups(db, workspaceId, { q, page: 1, viewerMemberId: memberId }),
      retainedOccurrences(db, workspaceId),
      countErrorGroups(db, workspaceId),
      errorEnvironments(db, workspaceId),
    ]);
    const ids = list.groups.map((g) => g.id);
    await Promise.all([
      occurrenceSparklines(db, workspaceId, ids),
      groupLatestFacts(db, workspaceId, ids),
      assigneeNames(
        db,
        list.groups.map((g) => g.assignee_member_id),
      ),
    ]);
  } finally {
    await db.destroy();
  }
  return compiled;
}

export async function explainPage(
  databaseUrl: string,
  workspaceId: string,
  memberId: string,
  q: string,
): Promise<ExplainedQuery[]> {
  const queries = await pageQueries(databaseUrl, workspaceId, memberId, q);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const out: ExplainedQuery[] = [];
    for (const query of queries) {
      const params = [...query.parameters];
      // Warm once, then explain: the plan of a page the server has served before.
      await client.query(query.sql, params);
      const json = await client.query<{
        'QUERY PLAN': [{ Plan: PlanNode; 'Execution Time': number }];
      }>(`explain (analyze, buffers, format json) ${query.sql}`, params);
      const text = await client.query<{ 'QUERY PLAN': string }>(
        `explain (analyze, buffers, format text) ${query.sql}`,
        params,
      );
      const [root] = json.rows[0]!['QUERY PLAN'];
      const scans = scansOf(root.Plan);
      out.push({
        label: labelOf(query.sql),
        executionMs: root['Execution Time'],
        scans,
        seqScan: scans.some((s) => s.node === 'Seq Scan'),
        text: `${query.sql}\n-- parameters: ${JSON.stringify(params)}\n${text.rows
          .map((r) => r['QUERY PLAN'])
          .join('\n')}`,
      });
    }
    return out;
  } finally {
    await client.end();
  }
}

/** Each statement's time and its scans of the two tables, one or two lines each. */
export function describeExplained(explained: readonly ExplainedQuery[]): void {
  for (const q of explained) {
    const scans = q.scans
      .map(
        (s) =>
          `${s.node}${s.index ? ` ${s.index}` : ` ${s.relation}`} (${s.rows} rows` +
          `${s.removed ? `, ${s.removed} dropped` : ''})`,
      )
      .join('; ');
    log(`    ${ms(q.executionMs).padStart(10)}  ${q.label}`);
    if (scans) log(`                ${scans}`);
  }
}
