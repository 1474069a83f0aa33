import { sql, type Kysely } from 'kysely';

/**
 * The Ops page charts error reports accepted and stored per minute. `received_at` is the accept
 * time; `stored_at` is when the ingest worker's insert committed, filled by the column default, so
 * the hot path sends nothing more. now() is stable, so existing rows take the migration's time
 * without a table rewrite (they are older than any chart's hour anyway).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table error_occurrences add column stored_at timestamptz not null default now()`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table error_occurrences drop column stored_at`.execute(db);
}
