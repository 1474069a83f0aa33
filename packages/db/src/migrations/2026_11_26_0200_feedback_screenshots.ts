import { sql, type Kysely } from 'kysely';

/**
 * A widget ticket's optional screenshot (issue 28): at most one per ticket, the image bytes kept
 * beside the ticket (2 MB at most, checked before insert) and removed with it. Its own table so
 * reading tickets never drags the bytes along; the type is the one its magic bytes proved.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table feedback_screenshots (
    feedback_id text primary key references feedback (id) on delete cascade,
    workspace_id text not null references workspaces (id) on delete cascade,
    content_type text not null
      check (content_type in ('image/png', 'image/jpeg', 'image/webp')),
    width integer not null check (width > 0),
    height integer not null check (height > 0),
    byte_size integer not null check (byte_size > 0 and byte_size <= 2097152),
    bytes bytea not null,
    created_at timestamptz not null default now()
  )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table feedback_screenshots`.execute(db);
}
