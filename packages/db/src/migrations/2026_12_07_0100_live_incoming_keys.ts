import { sql, type Kysely } from 'kysely';

/**
 * Issue 48: which incoming-webhook keys may post, written once in the database, and the re-check
 * at commit as a function whose plans Postgres keeps.
 *
 * The definition joins five tables, and Postgres spent 0.7 ms planning it on every group commit of
 * incoming posts (pg_stat_statements in bench:start: 1.8 s of planning per 18,750 posts, the
 * largest single cost of Postgres' CPU per post). Statements in a PL/pgSQL function are planned
 * once per connection, then run from the kept plan (pgbench on the same host: 770 calls/s planned
 * each time, 6,000/s through the function). Prepared statements would do the same from the
 * client, but PgBouncer 1.18 in transaction mode (issue 47) cannot carry them across
 * transactions.
 *
 * `live_incoming_keys`: the key neither disabled nor deleted, its creator holding an active
 * workspace seat and an active seat in the key's room, which is not a DM; with the creator's name
 * that messages are posted under. The lookup (webhooks-in findLiveKey) reads it as it is.
 *
 * `lock_live_incoming_keys(hashes)`: the re-check inside the transaction that stores a batch of
 * posts (liveKeyHashes). It first takes FOR SHARE on the key rows of those digests, so a rotate,
 * disable or delete committing right now either waits for this transaction or is seen by it (a
 * VOLATILE function's next statement takes a new snapshot). Only then does it read the view:
 * seat rows are not locked, so a member leaving never waits on posts.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create view live_incoming_keys as
    select w.id, w.key_hash, w.workspace_id, w.room_id, w.name, w.created_by,
      u.name as creator_name, w.github_secret_sealed
    from incoming_webhooks w
    join rooms r on r.id = w.room_id
    join members m on m.id = w.created_by and m.workspace_id = w.workspace_id and m.left_at is null
    join room_members rm on rm.room_id = w.room_id and rm.member_id = m.id and rm.left_at is null
    join users u on u.id = m.user_id
    where w.disabled_at is null and w.deleted_at is null and r.kind <> 'dm'`.execute(db);
  await sql`
    create function lock_live_incoming_keys(hashes text[])
    returns table (webhook_id text, live_hash text)
    language plpgsql as $$
    begin
      perform 1 from incoming_webhooks w where w.key_hash = any(hashes) for share;
      return query select k.id, k.key_hash from live_incoming_keys k where k.key_hash = any(hashes);
    end;
    $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop function if exists lock_live_incoming_keys(text[])`.execute(db);
  await sql`drop view if exists live_incoming_keys`.execute(db);
}
