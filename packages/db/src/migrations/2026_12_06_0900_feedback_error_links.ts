import { sql, type Kysely } from 'kysely';
import { SHIPPED_BEFORE_THE_RULES } from '../ferry-migration.js';

/**
 * Tickets linked to error groups (issue 45): automatically when the ticket's visitor had
 * occurrences of the group in the 10 minutes around the report (`origin = 'visitor'`, with how
 * many), or by a member's hand (`'hand'`). A member's unlink keeps the row, marked, so the next
 * occurrence of that visitor does not link it again. Both sides' deletion removes the link.
 * `feedback_visitor_time_idx` is the writer's lookup: this visitor's tickets near this time.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table feedback_error_links (
    feedback_id text not null references feedback (id) on delete cascade,
    group_id text not null references error_groups (id) on delete cascade,
    workspace_id text not null references workspaces (id) on delete cascade,
    origin text not null check (origin in ('visitor', 'hand')),
    occurrences integer not null default 0 check (occurrences >= 0),
    linked_by text references members (id) on delete set null,
    unlinked_at timestamptz,
    unlinked_by text references members (id) on delete set null,
    created_at timestamptz not null default now(),
    primary key (feedback_id, group_id)
  )`.execute(db);
  await sql`create index feedback_error_links_group_idx
    on feedback_error_links (group_id, created_at desc)`.execute(db);
  await sql`create index feedback_visitor_time_idx on feedback (visitor_id, created_at)
    where visitor_id is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index feedback_visitor_time_idx`.execute(db);
  await sql`drop table feedback_error_links`.execute(db);
}

/** squawk rules this migration breaks (pnpm check:migrations), and why it stays as it is. */
export const squawkIgnore = {
  'require-concurrent-index-creation': `${SHIPPED_BEFORE_THE_RULES} Blocks writes to feedback while feedback_visitor_time_idx builds.`,
};
