import { sql, type Kysely } from 'kysely';
import { SHIPPED_BEFORE_THE_RULES } from '../ferry-migration.js';

/**
 * The outgoing worker claims a hook's oldest pending delivery (by the message's created_at, then
 * id) before every send. Without this partial index each claim read and sorted every delivery the
 * hook ever had; with it the head is the first entry of a small index.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index webhook_deliveries_pending_head_idx on webhook_deliveries (hook_id, created_at, id) where status = 'pending' and event = 'message_created'`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists webhook_deliveries_pending_head_idx`.execute(db);
}

/** squawk rules this migration breaks (pnpm check:migrations), and why it stays as it is. */
export const squawkIgnore = {
  'require-concurrent-index-creation': `${SHIPPED_BEFORE_THE_RULES} Blocks writes to webhook_deliveries while the index builds.`,
};
