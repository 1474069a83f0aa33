import { sql, type Kysely } from 'kysely';

/**
 * The coding CLI a local agent runs and the version it reported ("claude 2.1.332", "codex 0.63.0",
 * or "claude (not found)"), sent with its heartbeats and shown on the Dispatch card (#23), so an
 * owner sees an old or missing CLI before a run fails on it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table agents add column cli text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table agents drop column cli`.execute(db);
}
