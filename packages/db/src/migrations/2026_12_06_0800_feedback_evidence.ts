import { sql, type Kysely } from 'kysely';

/**
 * A widget ticket's evidence (issue 45): the console lines, requests, page errors and route
 * changes of the minutes before the report, captured by the widget when the workspace turns it on.
 * One row per ticket at most, removed with it. Its own table, like the screenshot, so listing
 * tickets never reads it. `entries` is the merged timeline, already scrubbed and cut to 64 KB
 * (`byte_size`, checked here too); `dropped` counts per kind what did not fit or was not kept.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table feedback_evidence (
    feedback_id text primary key references feedback (id) on delete cascade,
    workspace_id text not null references workspaces (id) on delete cascade,
    entries jsonb not null default '[]'::jsonb,
    dropped jsonb not null default '{}'::jsonb,
    byte_size integer not null check (byte_size >= 0 and byte_size <= 65536),
    captured_at timestamptz not null,
    created_at timestamptz not null default now()
  )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table feedback_evidence`.execute(db);
}
