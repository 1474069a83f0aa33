import { sql, type Kysely } from 'kysely';

/**
 * Issue 41: an occurrence's structured detail (frames with code, exception chain, breadcrumbs,
 * tags, user, request, contexts), capped at about 64 KB by the writer. Null for reports that have
 * none (/ingest/errors). Adding a nullable column without a default rewrites nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table error_occurrences add column detail jsonb`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table error_occurrences drop column detail`.execute(db);
}
