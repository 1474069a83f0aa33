import { sql, type Kysely } from 'kysely';

/**
 * A revoked (or deleted) API token's open agent streams must end at once in every gateway
 * process. Whatever sets `revoked_at` (the tokens page, a member leaving, a script) fires this
 * trigger, so no code path can forget to tell the gateways: it notifies `ferry_token_revoked` with
 * the token id at commit. Row-level, and only on the change from live to revoked, so ordinary
 * updates (`last_used_at`) stay silent.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create or replace function ferry_token_revoked() returns trigger
    language plpgsql as $$
    begin
      perform pg_notify('ferry_token_revoked', case when tg_op = 'DELETE' then old.id else new.id end);
      return null;
    end;
    $$`.execute(db);
  await sql`
    create trigger api_tokens_revoked_notify
    after update of revoked_at on api_tokens
    for each row when (old.revoked_at is null and new.revoked_at is not null)
    execute function ferry_token_revoked()`.execute(db);
  await sql`
    create trigger api_tokens_deleted_notify
    after delete on api_tokens
    for each row execute function ferry_token_revoked()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger if exists api_tokens_deleted_notify on api_tokens`.execute(db);
  await sql`drop trigger if exists api_tokens_revoked_notify on api_tokens`.execute(db);
  await sql`drop function if exists ferry_token_revoked()`.execute(db);
}
