import { sql, type Kysely } from 'kysely';

/**
 * Issue 43, releases.
 *
 * `error_groups.first_release` / `last_release`: the release of the group's earliest and latest
 * occurrence, kept by the writer's group upsert in the statement it already runs. Stored rather
 * than read from occurrences: retention prunes those, and the list would otherwise scan them.
 * `regressed_in_release`: the release of the occurrence that last reopened it (the release
 * list's "regressed" count). `resolved_in_release`: set by "Resolve in next release" to the
 * newest release known then; an occurrence on it or an older one does not reopen the group.
 *
 * `releases.first_event_at`: the earliest event seen on the release. The writer now adds every
 * release its events name to `releases` (issue 41's table), so the list has one source.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table error_groups
    add column first_release text,
    add column last_release text,
    add column regressed_in_release text,
    add column resolved_in_release text`.execute(db);
  await sql`alter table releases add column first_event_at timestamptz`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table releases drop column first_event_at`.execute(db);
  await sql`alter table error_groups
    drop column first_release,
    drop column last_release,
    drop column regressed_in_release,
    drop column resolved_in_release`.execute(db);
}
