import { sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * Builds an index on an existing table without blocking its writes: CREATE INDEX CONCURRENTLY, in
 * a migration that declares `transaction = false`. A concurrent build that fails (a lock_timeout,
 * a duplicate under a unique index, a killed process) leaves an INVALID index behind that `if not
 * exists` would then take for done; so an invalid leftover of that name is dropped first
 * (concurrently too), and running the migration again builds it anew.
 *
 *   await createIndexConcurrently(db, 'messages_member_time_idx',
 *     sql`on messages (room_id, created_at) where author_kind = 'member'`);
 */
export async function createIndexConcurrently(
  db: Kysely<unknown>,
  name: string,
  definition: RawBuilder<unknown>,
  options: { unique?: boolean } = {},
): Promise<void> {
  const leftover = await sql<{ invalid: boolean }>`select not i.indisvalid as invalid
    from pg_index i join pg_class c on c.oid = i.indexrelid
    where c.relname = ${name} and c.relnamespace = current_schema()::regnamespace`.execute(db);
  if (leftover.rows[0]?.invalid) {
    await sql`drop index concurrently if exists ${sql.id(name)}`.execute(db);
  }
  const unique = options.unique ? sql`unique ` : sql``;
  await sql`create ${unique}index concurrently if not exists ${sql.id(name)} ${definition}`.execute(
    db,
  );
}
