import { sql, type Kysely } from 'kysely';

/**
 * Issue 43, fingerprint rules: a workspace's own grouping rules, and which rule made a group.
 *
 * `error_fingerprint_rules`: the rules as the settings page saved them, one text per workspace
 * (the page edits them as one text, and only text that parses is saved). A table of its own: the
 * writer reads it once per batch, and most workspaces have no row.
 *
 * `error_groups.fingerprint_rule`: "line N: <rule>" when a rule made the group's fingerprint;
 * null for SPEC.md's default grouping. Written when the group is created, never after: editing
 * the rules regroups only new occurrences, and a group keeps saying what made it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table error_fingerprint_rules (
      workspace_id text primary key references workspaces (id) on delete cascade,
      source text not null,
      updated_at timestamptz not null default now()
    )`.execute(db);
  await sql`alter table error_groups add column fingerprint_rule text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table error_groups drop column fingerprint_rule`.execute(db);
  await sql`drop table error_fingerprint_rules`.execute(db);
}
