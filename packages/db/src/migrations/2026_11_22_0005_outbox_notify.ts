import { sql, type Kysely } from 'kysely';

/**
 * Every insert into the outbox notifies `ferry_outbox` (once per statement; Postgres delivers it at
 * commit and folds duplicates of one transaction), so the relay wakes within milliseconds of a
 * commit instead of on its next poll, and writers pay no extra round trip.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create function outbox_notify() returns trigger language plpgsql as $$
    begin
      perform pg_notify('ferry_outbox', '');
      return null;
    end
  $$`.execute(db);
  await sql`create trigger outbox_notify after insert on outbox for each statement execute function outbox_notify()`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger if exists outbox_notify on outbox`.execute(db);
  await sql`drop function if exists outbox_notify()`.execute(db);
}
