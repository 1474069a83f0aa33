import { sql } from 'kysely';
import type { Db } from '@ferry/db';

/**
 * The table ceiling-app.ts inserts into: shaped like `messages`, without its foreign keys,
 * triggers or outbox (bench:webhooks and bench:start both run the ceiling app on it).
 */
export async function createCeilingTable(db: Db): Promise<void> {
  await sql`
    create table if not exists bench_ceiling_messages (
      id text primary key,
      room_id text not null,
      workspace_id text not null,
      display_name text not null,
      body text not null,
      metadata jsonb not null default '{}',
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index if not exists bench_ceiling_messages_room_idx
    on bench_ceiling_messages (room_id, id)`.execute(db);
}
