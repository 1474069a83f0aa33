import { sql, type Kysely } from 'kysely';

/**
 * The original payload of a message that arrived through an incoming webhook (Slack, Mattermost,
 * Discord, Teams or SPEC.md's own), as sent, capped at 64 KB (`truncated` says so): the body is
 * rendered once at write time, and this keeps what it was rendered from, to show admins ("view
 * payload") and to render again later. A table of its own so the messages rows that every page
 * reads stay small; it goes with its message.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table message_payloads (
      message_id text primary key references messages (id) on delete cascade,
      format text not null,
      payload text not null,
      truncated boolean not null default false,
      created_at timestamptz not null default now()
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table message_payloads`.execute(db);
}
