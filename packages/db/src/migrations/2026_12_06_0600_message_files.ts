import { sql, type Kysely } from 'kysely';

/**
 * Files sent with an incoming webhook's message (issue 44: Discord's `files[n]`), kept beside the
 * message and removed with it (the cascade). At most 8 MB a file (checked here as well as before
 * the insert); a message's total of 25 MB is the writer's check. Their order is the
 * message's `metadata.files` list. `content_type` is never what the
 * sender declared: an image type its magic bytes proved (shown inline), or
 * application/octet-stream (served as a download), so nothing stored is ever served as HTML.
 * The bytes are stored uncompressed (`storage external`): images and archives do not compress,
 * and trying costs CPU on every insert.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table message_files (
    id text primary key,
    message_id text not null references messages (id) on delete cascade,
    workspace_id text not null references workspaces (id) on delete cascade,
    name text not null check (length(name) between 1 and 255),
    content_type text not null check (content_type in
      ('image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/octet-stream')),
    byte_size integer not null check (byte_size >= 0 and byte_size <= 8388608),
    bytes bytea not null,
    created_at timestamptz not null default now()
  )`.execute(db);
  await sql`create index message_files_message_idx on message_files (message_id)`.execute(db);
  await sql`alter table message_files alter column bytes set storage external`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table message_files`.execute(db);
}
