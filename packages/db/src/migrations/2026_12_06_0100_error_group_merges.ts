import { sql, type Kysely } from 'kysely';

/**
 * Issue 43, merge and unmerge: the fingerprints a group holds besides its own.
 *
 * `error_group_fingerprints`: one row per fingerprint merged into a group. A fingerprint is
 * either a group's own (error_groups.fingerprint) or a row here, never both: the error writer
 * reads these rows (under the workspace's shared merge lock) and files an occurrence of a merged
 * fingerprint under the group that holds it, so future occurrences join the target. Unmerge
 * deletes the row; the fingerprint then makes a group of its own again.
 *
 * - `group_id`: the group holding it now (a merge of that group re-points the row to its own
 *   target); cascade, so a group that goes takes its merged fingerprints with it.
 * - `merged_group_id`: the id of the group merged away. Old links (/errors/<id>, mentions,
 *   alerts, the API) still name it: they follow this row to the group now holding it. Unique:
 *   a merged-away group never comes back (unmerge makes a new group).
 * - `error_class`, `latest_message`, `occurrence_count`: what the merged group was and how many
 *   occurrences came with it, for the group page's Fingerprints list (the group row is gone).
 * - `merged_by`: the member who merged; null for an API client or a seat since removed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table error_group_fingerprints (
      workspace_id text not null references workspaces (id) on delete cascade,
      fingerprint text not null,
      group_id text not null references error_groups (id) on delete cascade,
      merged_group_id text not null,
      error_class text not null,
      latest_message text not null,
      occurrence_count bigint not null,
      merged_at timestamptz not null default now(),
      merged_by text references members (id) on delete set null,
      primary key (workspace_id, fingerprint)
    )`.execute(db);
  // The group page's list (newest merge first), the re-pointing of a merge and the FK cascade.
  await sql`create index error_group_fingerprints_group_idx
    on error_group_fingerprints (group_id, merged_at desc)`.execute(db);
  await sql`create unique index error_group_fingerprints_merged_idx
    on error_group_fingerprints (workspace_id, merged_group_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table error_group_fingerprints`.execute(db);
}
