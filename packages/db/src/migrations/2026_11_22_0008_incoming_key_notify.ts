import { sql, type Kysely } from 'kysely';

/**
 * Incoming-webhook keys are cached in each webhooks-in process (the lookup joins five tables).
 * Anything that can change whether a key may post (the key itself; its creator's workspace or
 * room seat; the room; the creator's name shown on messages) notifies `ferry_incoming_keys` at
 * commit, and every process drops its cache. Statement-level, and Postgres folds identical
 * notifications of one transaction into one, so a bulk change costs one message.
 */
const TABLES = ['incoming_webhooks', 'members', 'room_members', 'rooms', 'users'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create or replace function ferry_incoming_keys_changed() returns trigger
    language plpgsql as $$
    begin
      perform pg_notify('ferry_incoming_keys', '');
      return null;
    end;
    $$`.execute(db);
  for (const table of TABLES) {
    await sql`
      create trigger ${sql.raw(`${table}_incoming_keys_notify`)}
      after insert or update or delete on ${sql.table(table)}
      for each statement execute function ferry_incoming_keys_changed()`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) {
    await sql`drop trigger if exists ${sql.raw(`${table}_incoming_keys_notify`)} on ${sql.table(table)}`.execute(
      db,
    );
  }
  await sql`drop function if exists ferry_incoming_keys_changed()`.execute(db);
}
