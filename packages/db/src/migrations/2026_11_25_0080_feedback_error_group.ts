import { sql, type Kysely } from 'kysely';
import { SHIPPED_BEFORE_THE_RULES } from '../ferry-migration.js';

/**
 * "Fix with agent" on an error group (issue 26) files a ticket linked to the group. The unique
 * index is what makes a second click (or two at once) open the same ticket instead of a new one;
 * deleting a group (retention never does; a workspace's removal does) unlinks its ticket.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table feedback add column error_group_id text
    references error_groups (id) on delete set null`.execute(db);
  await sql`create unique index feedback_error_group_once on feedback (error_group_id)
    where error_group_id is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index feedback_error_group_once`.execute(db);
  await sql`alter table feedback drop column error_group_id`.execute(db);
}

/** squawk rules this migration breaks (pnpm check:migrations), and why it stays as it is. */
export const squawkIgnore = {
  'adding-foreign-key-constraint': `${SHIPPED_BEFORE_THE_RULES} The new column is empty: the check reads feedback once, with its writes held.`,
  'require-concurrent-index-creation': `${SHIPPED_BEFORE_THE_RULES} Blocks writes to feedback while the index builds.`,
};
