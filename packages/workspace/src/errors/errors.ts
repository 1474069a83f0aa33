import type { ErrorGroupJson, ErrorOccurrenceJson } from './api-schemas.js';
import { isId, storable } from '@ferry/core';
import { sql, type SelectQueryBuilder } from 'kysely';
import { ERROR_SOURCES, ERROR_STATUSES, isErrorSource, isErrorStatus } from '@ferry/db';
import type {
  Database,
  Db,
  ErrorGroup,
  ErrorOccurrence,
  ErrorSource,
  ErrorStatus,
  Visitor,
} from '@ferry/db';
import type { SearchTerm } from './search-query.js';
import { checkedSearch, searchCondition } from './search-sql.js';

export { ERROR_SOURCES, ERROR_STATUSES, isErrorSource, isErrorStatus };

/**
 * Reading error groups and occurrences for the Errors pages and the read API. The ingest service
 * writes them; nothing here writes. Every query is scoped to one workspace, and an id of another
 * workspace reads exactly like one that never existed.
 *
 * The list must stay fast for a workspace with thousands of groups among a million occurrences, so
 * it only ever touches error_groups (through its (workspace_id[, source | status], last_seen_at
 * desc, id desc) indexes) and the trigger-kept error_workspace_stats row; occurrences are never
 * counted, except the last 14 days of the page's 25 groups for their sparklines (error-triage.ts).
 */

export const ERROR_GROUPS_PAGE_SIZE = 25;
export const OCCURRENCES_SHOWN = 100;
/** A group page shows its latest OCCURRENCES_SHOWN occurrences this many at a time. */
export const OCCURRENCES_PAGE_SIZE = 20;

/** Which groups a list shows; every field narrows it, and none means every group. */
export interface ErrorGroupFilter {
  source?: ErrorSource | undefined;
  status?: ErrorStatus | undefined;
  /** Groups with at least one occurrence in this environment. */
  environment?: string | undefined;
  /** A search in the grammar of search-query.ts (issue 43); malformed, a 422 naming the token. */
  q?: string | undefined;
  /** Who is looking: what the search's `assigned:me` means (a page's seat, an API token's maker). */
  viewerMemberId?: string | undefined;
}

export interface ErrorGroupPage {
  groups: ErrorGroup[];
  page: number;
  /** Groups matching the filter. */
  totalGroups: number;
  /** At least 1, even when there are no groups. */
  pages: number;
  /** Groups per source under the other filters (status, environment, search), for the tabs. */
  counts: Record<ErrorSource, number>;
  /** Groups per status under the other filters (source, environment, search), for the tabs. */
  statusCounts: Record<ErrorStatus, number>;
}

/** The environment and search narrowing, which the list and its tab counts share. */
function narrowed<QB extends SelectQueryBuilder<Database, 'error_groups', object>>(
  query: QB,
  workspaceId: string,
  filter: ErrorGroupFilter,
  terms: readonly SearchTerm[],
): QB {
  let q = query;
  // Query strings skip the body's storable pass, and Postgres refuses a NUL in any text.
  if (filter.environment) {
    const environment = storable(filter.environment);
    q = q.where(sql<boolean>`environments @> array[${environment}]::text[]`) as QB;
  }
  if (terms.length > 0) q = q.where(searchCondition(workspaceId, terms)) as QB;
  return q;
}

/** Whether a (source, status) cell of the grouped count passes the query's is: and source: terms. */
function cellPasses(
  terms: readonly SearchTerm[],
  kind: 'status' | 'source',
  cell: { source: ErrorSource; status: ErrorStatus },
): boolean {
  return terms.every((term) => {
    if (term.kind !== kind) return true;
    const hit = term.kind === 'status' ? cell.status === term.status : cell.source === term.source;
    return hit !== term.negated;
  });
}

/**
 * Groups most recently seen first (id breaks ties so pages are stable), 25 a page. The filter
 * picks them; the default is every group (the Errors page asks for unresolved ones itself).
 */
export async function listErrorGroups(
  db: Db,
  workspaceId: string,
  options: ErrorGroupFilter & { page?: number } = {},
): Promise<ErrorGroupPage> {
  const page = Math.max(1, Math.floor(options.page ?? 1));
  const terms = await checkedSearch(db, workspaceId, options.q, {
    viewerMemberId: options.viewerMemberId,
  });
  let query = narrowed(
    db.selectFrom('error_groups').selectAll().where('workspace_id', '=', workspaceId),
    workspaceId,
    options,
    terms,
  )
    .orderBy('last_seen_at', 'desc')
    .orderBy('id', 'desc')
    .limit(ERROR_GROUPS_PAGE_SIZE)
    .offset((page - 1) * ERROR_GROUPS_PAGE_SIZE);
  if (options.source) query = query.where('source', '=', options.source);
  if (options.status) query = query.where('status', '=', options.status);
  const [groups, cells] = await Promise.all([
    query.execute(),
    countGroupsBySourceAndStatus(db, workspaceId, options, terms),
  ]);
  const counts = zeroes(ERROR_SOURCES);
  const statusCounts = zeroes(ERROR_STATUSES);
  let totalGroups = 0;
  for (const cell of cells) {
    const sourceMatches =
      (!options.source || cell.source === options.source) && cellPasses(terms, 'source', cell);
    const statusMatches =
      (!options.status || cell.status === options.status) && cellPasses(terms, 'status', cell);
    if (statusMatches) counts[cell.source] += cell.n;
    if (sourceMatches) statusCounts[cell.status] += cell.n;
    if (sourceMatches && statusMatches) totalGroups += cell.n;
  }
  return {
    groups,
    page,
    totalGroups,
    pages: Math.max(1, Math.ceil(totalGroups / ERROR_GROUPS_PAGE_SIZE)),
    counts,
    statusCounts,
  };
}

/**
 * Of `groupIds`, those of the workspace that the filter shows now: what a live Errors page counts
 * as new (services/web features/errors/live.ts). One indexed read by primary key, whatever the filter.
 */
export async function errorGroupsMatching(
  db: Db,
  workspaceId: string,
  groupIds: readonly string[],
  filter: ErrorGroupFilter,
): Promise<Set<string>> {
  const ids = groupIds.filter((id) => isId(id, 'errorGroup'));
  if (ids.length === 0) return new Set();
  const terms = await checkedSearch(db, workspaceId, filter.q, {
    viewerMemberId: filter.viewerMemberId,
  });
  let query = narrowed(
    db
      .selectFrom('error_groups')
      .select('id')
      .where('workspace_id', '=', workspaceId)
      .where('id', 'in', ids),
    workspaceId,
    filter,
    terms,
  );
  if (filter.source) query = query.where('source', '=', filter.source);
  if (filter.status) query = query.where('status', '=', filter.status);
  const rows = await query.execute();
  return new Set(rows.map((row) => row.id));
}

function zeroes<K extends string>(keys: readonly K[]): Record<K, number> {
  return Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;
}

export function sumCounts(counts: Record<string, number>): number {
  return Object.values(counts).reduce((a, b) => a + b, 0);
}

/**
 * Groups per (source, status) under the environment and search filters: one grouped count that
 * feeds the pager and both tab strips, read off error_groups_counts_idx (workspace_id, source,
 * status, including id and environments: an index-only scan of the workspace's groups, 20,000 in
 * bench/search's workspaces, never other workspaces' rows). The
 * query's is: and source: terms are left out here and applied per cell (cellPasses), so each tab
 * strip counts under the other filters.
 */
async function countGroupsBySourceAndStatus(
  db: Db,
  workspaceId: string,
  filter: ErrorGroupFilter,
  terms: readonly SearchTerm[],
): Promise<{ source: ErrorSource; status: ErrorStatus; n: number }[]> {
  const rows = await narrowed(
    db
      .selectFrom('error_groups')
      .select(['source', 'status', (eb) => eb.fn.countAll<string>().as('n')])
      .where('workspace_id', '=', workspaceId),
    workspaceId,
    filter,
    terms.filter((term) => term.kind !== 'status' && term.kind !== 'source'),
  )
    .groupBy(['source', 'status'])
    .execute();
  return rows.map((row) => ({ source: row.source, status: row.status, n: Number(row.n) }));
}

/** Every group of the workspace (the Errors header), an index-only count of one workspace. */
export async function countErrorGroups(db: Db, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom('error_groups')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The environments the workspace's groups were seen in, for the filter's choices. */
export async function errorEnvironments(db: Db, workspaceId: string): Promise<string[]> {
  const rows = await db
    .selectFrom(
      db
        .selectFrom('error_groups')
        .select(sql<string>`unnest(environments)`.as('environment'))
        .where('workspace_id', '=', workspaceId)
        .as('e'),
    )
    .select('e.environment')
    .distinct()
    .orderBy('e.environment')
    .limit(100)
    .execute();
  return rows.map((row) => row.environment);
}

/**
 * Retained occurrences per workspace, from the counter the occurrence triggers keep (a workspace
 * without a row: 0): the Errors header and the ingest writer's pruning check both read it here,
 * never by counting occurrences.
 */
export async function retainedByWorkspace(
  db: Db,
  workspaceIds: readonly string[],
): Promise<Map<string, number>> {
  const counts = new Map(workspaceIds.map((id) => [id, 0]));
  if (workspaceIds.length === 0) return counts;
  const rows = await db
    .selectFrom('error_workspace_stats')
    .select(['workspace_id', 'retained_occurrences'])
    .where('workspace_id', 'in', [...workspaceIds])
    .execute();
  for (const row of rows) counts.set(row.workspace_id, Number(row.retained_occurrences));
  return counts;
}

/**
 * Adds the occurrences the error writer inserted to their workspaces' counters and returns the
 * new totals, in one statement at the end of the writer's transaction (issue #27 part 3). The
 * writer's INSERT skips the counting trigger (`WRITER_COUNTS_SETTING`), so a workspace's counter
 * row is locked from here to the commit only, not for the whole batch. Rows are upserted in
 * workspace order, as the trigger does, so two writers cannot deadlock on them.
 */
export async function addRetainedOccurrences(
  db: Db,
  inserted: ReadonlyMap<string, number>,
): Promise<Map<string, number>> {
  const counted = [...inserted].filter(([, n]) => n > 0).sort(([a], [b]) => (a < b ? -1 : 1));
  if (counted.length === 0) return new Map();
  const rows = await db
    .insertInto('error_workspace_stats')
    .values(
      counted.map(([workspaceId, n]) => ({ workspace_id: workspaceId, retained_occurrences: n })),
    )
    .onConflict((oc) =>
      oc.column('workspace_id').doUpdateSet({
        retained_occurrences: sql`error_workspace_stats.retained_occurrences + excluded.retained_occurrences`,
      }),
    )
    .returning(['workspace_id', 'retained_occurrences'])
    .execute();
  return new Map(rows.map((row) => [row.workspace_id, Number(row.retained_occurrences)]));
}

/** The Errors header's total: a primary-key read of the trigger-kept counter. */
export async function retainedOccurrences(db: Db, workspaceId: string): Promise<number> {
  return (await retainedByWorkspace(db, [workspaceId])).get(workspaceId) ?? 0;
}

export async function findErrorGroup(
  db: Db,
  workspaceId: string,
  id: string,
): Promise<ErrorGroup | undefined> {
  if (!isId(id, 'errorGroup')) return undefined;
  return db
    .selectFrom('error_groups')
    .selectAll()
    .where('id', '=', id)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
}

/** Who the visitor is (their identify call), never their token. */
export type OccurrenceVisitor = Pick<Visitor, 'id' | 'name' | 'email' | 'role'>;
export type OccurrenceWithVisitor = ErrorOccurrence & { visitor: OccurrenceVisitor | null };

/**
 * A group's latest occurrences (occurred_at desc along error_occurrences_group_idx), each with its
 * visitor when one was recorded and still exists.
 */
export async function latestOccurrences(
  db: Db,
  group: Pick<ErrorGroup, 'id' | 'workspace_id'>,
  { limit = OCCURRENCES_SHOWN, offset = 0 }: { limit?: number; offset?: number } = {},
): Promise<OccurrenceWithVisitor[]> {
  const rows = await db
    .selectFrom('error_occurrences as o')
    .leftJoin('visitors as v', (join) =>
      join.onRef('v.id', '=', 'o.visitor_id').onRef('v.workspace_id', '=', 'o.workspace_id'),
    )
    .selectAll('o')
    .select(['v.id as v_id', 'v.name as v_name', 'v.email as v_email', 'v.role as v_role'])
    .where('o.group_id', '=', group.id)
    .where('o.workspace_id', '=', group.workspace_id)
    .orderBy('o.occurred_at', 'desc')
    .orderBy('o.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  return rows.map(({ v_id, v_name, v_email, v_role, ...occurrence }) => ({
    ...occurrence,
    visitor: v_id !== null ? { id: v_id, name: v_name, email: v_email, role: v_role } : null,
  }));
}

export async function findErrorOccurrence(
  db: Db,
  workspaceId: string,
  id: string,
): Promise<ErrorOccurrence | undefined> {
  if (!isId(id, 'errorOccurrence')) return undefined;
  return db
    .selectFrom('error_occurrences')
    .selectAll()
    .where('id', '=', id)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
}

export function errorGroupJson(g: ErrorGroup): ErrorGroupJson {
  return {
    id: g.id,
    error_class: g.error_class,
    latest_message: g.latest_message,
    source: g.source,
    occurrence_count: Number(g.occurrence_count),
    first_seen_at: g.first_seen_at.toISOString(),
    last_seen_at: g.last_seen_at.toISOString(),
    status: g.status,
    regressed_at: g.regressed_at?.toISOString() ?? null,
    environments: g.environments,
    assignee_id: g.assignee_member_id,
    first_release: g.first_release,
    last_release: g.last_release,
    resolved_in_release: g.resolved_in_release,
  };
}

/** An occurrence as stored: every column but the workspace (the token already names it). */
export function errorOccurrenceJson(o: ErrorOccurrence): ErrorOccurrenceJson {
  return {
    id: o.id,
    group_id: o.group_id,
    error_class: o.error_class,
    message: o.message,
    backtrace: o.backtrace,
    url: o.url,
    request_method: o.request_method,
    request_path: o.request_path,
    environment: o.environment,
    app_version: o.app_version,
    context: o.context,
    occurred_at: o.occurred_at.toISOString(),
    received_at: o.received_at.toISOString(),
    source: o.source,
    visitor_id: o.visitor_id,
    detail: o.detail ?? null,
  };
}

/** The first report a workspace can paste: the ingest endpoint with its public key. */
export function ingestCurlExample(publicUrl: string, publicKey: string): string {
  return [
    `curl -X POST ${publicUrl}/ingest/errors \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -H "X-Service-Tenant: ${publicKey}" \\`,
    `  -d '{"error_class": "RuntimeError", "message": "Something broke",`,
    `       "source": "api", "environment": "production",`,
    `       "backtrace": ["app/models/order.rb:42:in \`charge\`"]}'`,
  ].join('\n');
}

/**
 * The DSN a Sentry SDK is given: `{scheme}://{public key}@{host}{path}/1`. The project segment is
 * not checked (the key decides the workspace, DESIGN.md) but must be digits: the JavaScript SDKs
 * refuse any other DSN and sentry-python reads it with int(), while our workspace ids are `ws_…`.
 * A PUBLIC_URL under a path keeps it (the SDKs post to `{path}/api/1/envelope/`).
 */
export function sentryDsn(publicUrl: string, publicKey: string): string {
  const url = new URL(publicUrl);
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.protocol}//${publicKey}@${url.host}${path}/1`;
}

export type SentrySdkName = 'node' | 'browser' | 'python' | 'ruby';

/** Ready-to-paste set-ups of Sentry's own SDKs with the workspace's DSN, one per platform. */
export function sentrySnippets(
  dsn: string,
): Record<SentrySdkName, { label: string; code: string }> {
  const js = (pkg: string) =>
    [
      `// npm install ${pkg}`,
      `import * as Sentry from '${pkg}';`,
      '',
      `Sentry.init({`,
      `  dsn: '${dsn}',`,
      `  environment: 'production',`,
      `  release: 'my-app@1.0.0',`,
      `});`,
    ].join('\n');
  return {
    node: { label: 'Node (@sentry/node)', code: js('@sentry/node') },
    browser: { label: 'Browser (@sentry/browser)', code: js('@sentry/browser') },
    python: {
      label: 'Python (sentry-sdk)',
      code: [
        '# pip install sentry-sdk',
        'import sentry_sdk',
        '',
        'sentry_sdk.init(',
        `    dsn="${dsn}",`,
        '    environment="production",',
        '    release="my-app@1.0.0",',
        ')',
      ].join('\n'),
    },
    ruby: {
      label: 'Ruby (sentry-ruby; sentry-raven works too)',
      code: [
        "# Gemfile: gem 'sentry-ruby'",
        'Sentry.init do |config|',
        `  config.dsn = '${dsn}'`,
        "  config.environment = 'production'",
        "  config.release = 'my-app@1.0.0'",
        'end',
      ].join('\n'),
    },
  };
}
