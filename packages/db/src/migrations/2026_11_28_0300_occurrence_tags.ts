import { sql, type Kysely } from 'kysely';

/**
 * Issue 41: an occurrence's tags as one small flat map (the SDK's tags, and browser, os, runtime
 * and device read from its contexts), written by the error writer, so the group page's tag
 * breakdown counts them over every retained occurrence without reading each one's whole detail.
 * Null for reports without any.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table error_occurrences add column tags jsonb`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table error_occurrences drop column tags`.execute(db);
}
