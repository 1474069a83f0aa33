import { sql, type Kysely } from 'kysely';
import { SHIPPED_BEFORE_THE_RULES } from '../ferry-migration.js';

/**
 * Issue 43's search (packages/workspace errors/search-sql.ts): indexes so each key reads an
 * index, not the workspace's rows. pg_trgm answers `ilike '%text%'` (free text over the class and
 * latest message, the occurrences' url and culprit, their top frame); GIN on the occurrences'
 * tags answers `tags @> {key: value}` and `tags ? key`; release: is an equality or prefix on
 * (workspace_id, app_version). pg_trgm is a trusted extension: the database owner may create it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create extension if not exists pg_trgm`.execute(db);
  await sql`create index error_groups_class_trgm_idx
    on error_groups using gin (error_class gin_trgm_ops)`.execute(db);
  await sql`create index error_groups_message_trgm_idx
    on error_groups using gin (latest_message gin_trgm_ops)`.execute(db);
  await sql`create index error_occurrences_tags_idx
    on error_occurrences using gin (tags)`.execute(db);
  await sql`create index error_occurrences_url_trgm_idx
    on error_occurrences using gin (url gin_trgm_ops)`.execute(db);
  await sql`create index error_occurrences_culprit_trgm_idx
    on error_occurrences using gin ((backtrace[1]) gin_trgm_ops)`.execute(db);
  await sql`create index error_occurrences_release_idx
    on error_occurrences (workspace_id, app_version)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const index of [
    'error_occurrences_release_idx',
    'error_occurrences_culprit_trgm_idx',
    'error_occurrences_url_trgm_idx',
    'error_occurrences_tags_idx',
    'error_groups_message_trgm_idx',
    'error_groups_class_trgm_idx',
  ]) {
    await sql`drop index if exists ${sql.id(index)}`.execute(db);
  }
  // The extension stays: other databases' objects may use it, and it costs nothing idle.
}

/** squawk rules this migration breaks (pnpm check:migrations), and why it stays as it is. */
export const squawkIgnore = {
  'require-concurrent-index-creation': `${SHIPPED_BEFORE_THE_RULES} Blocks writes to error_groups and error_occurrences while the indexes build.`,
};
