import { sql, type Kysely } from 'kysely';

/**
 * Why a token was revoked when a person did not revoke it by hand: its maker left the workspace or
 * lost the role that may mint tokens ("revoked when Ada left"). Null for a manual revoke.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table api_tokens add column revoked_reason text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table api_tokens drop column revoked_reason`.execute(db);
}
