import { sql, type Kysely } from 'kysely';
import { SHIPPED_BEFORE_THE_RULES } from '../ferry-migration.js';

/**
 * Issue 43's search, measured (bench/search, bench/RESULTS.md): in a database of ten workspaces of
 * 20,000 groups, migration 2026_11_28_0500's indexes answered every workspace's matches and the
 * query then threw nine tenths away, and the Errors page's counts read every workspace's groups
 * (a sequential scan of error_groups, twice a page). Here:
 *
 * - The trigram and tag GIN indexes lead with workspace_id (btree_gin, a trusted extension, lets a
 *   GIN index hold a plain column), so a probe is the workspace's entries ANDed with the term's
 *   inside one index. They replace the old ones: a GIN index of several columns still answers a
 *   condition on any one of them, so a query without the workspace loses nothing.
 * - error_occurrences_ws_group_tags_idx (workspace_id, group_id) including tags: a tag term's
 *   semi-join back to the groups reads the workspace's own entries index-only (group and tags in
 *   the index), never the table. A tag most occurrences carry (browser:Chrome, about half) or a
 *   glob (feature:checkout-*, which no GIN operator answers) matched thousands of rows whose
 *   group_id only the heap held: 38-55 ms a query, twice a page (list and counts). Retention caps
 *   what it reads at the workspace's retained occurrences (20,000); the GIN probe stays for the
 *   search's tag-key check.
 * - error_groups_counts_idx (workspace_id, source, status) including id and environments: the
 *   page's per-source/status counts, its count of every group, its environment menu and the
 *   search's semi-joins back to the group read it alone (an index-only scan of the workspace's
 *   groups), never the table.
 */
const REPLACED = {
  error_groups_class_trgm_idx: sql`on error_groups using gin (error_class gin_trgm_ops)`,
  error_groups_message_trgm_idx: sql`on error_groups using gin (latest_message gin_trgm_ops)`,
  error_occurrences_tags_idx: sql`on error_occurrences using gin (tags)`,
  error_occurrences_url_trgm_idx: sql`on error_occurrences using gin (url gin_trgm_ops)`,
  error_occurrences_culprit_trgm_idx: sql`on error_occurrences
    using gin ((backtrace[1]) gin_trgm_ops)`,
};

const BY_WORKSPACE = {
  error_groups_counts_idx: sql`on error_groups (workspace_id, source, status)
    include (id, environments)`,
  error_groups_ws_class_trgm_idx: sql`on error_groups
    using gin (workspace_id, error_class gin_trgm_ops)`,
  error_groups_ws_message_trgm_idx: sql`on error_groups
    using gin (workspace_id, latest_message gin_trgm_ops)`,
  error_occurrences_ws_tags_idx: sql`on error_occurrences using gin (workspace_id, tags)`,
  error_occurrences_ws_group_tags_idx: sql`on error_occurrences (workspace_id, group_id)
    include (tags)`,
  error_occurrences_ws_url_trgm_idx: sql`on error_occurrences
    using gin (workspace_id, url gin_trgm_ops)`,
  error_occurrences_ws_culprit_trgm_idx: sql`on error_occurrences
    using gin (workspace_id, (backtrace[1]) gin_trgm_ops)`,
};

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create extension if not exists btree_gin`.execute(db);
  for (const [name, definition] of Object.entries(BY_WORKSPACE)) {
    await sql`create index ${sql.id(name)} ${definition}`.execute(db);
  }
  for (const name of Object.keys(REPLACED)) {
    await sql`drop index if exists ${sql.id(name)}`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [name, definition] of Object.entries(REPLACED)) {
    await sql`create index ${sql.id(name)} ${definition}`.execute(db);
  }
  for (const name of Object.keys(BY_WORKSPACE)) {
    await sql`drop index if exists ${sql.id(name)}`.execute(db);
  }
  // btree_gin stays, as pg_trgm does: other databases' objects may use it.
}

/** squawk rules this migration breaks (pnpm check:migrations), and why it stays as it is. */
export const squawkIgnore = {
  'require-concurrent-index-creation': `${SHIPPED_BEFORE_THE_RULES} Blocks writes to error_groups and error_occurrences while the indexes build.`,
  'require-concurrent-index-deletion': `${SHIPPED_BEFORE_THE_RULES} Drops the replaced indexes with error_groups and error_occurrences locked, briefly.`,
};
