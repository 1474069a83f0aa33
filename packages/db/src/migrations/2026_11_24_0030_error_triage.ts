import { sql, type Kysely } from 'kysely';
import { SHIPPED_BEFORE_THE_RULES } from '../ferry-migration.js';

/**
 * Triage of error groups (issue #13): a status (unresolved, resolved, ignored), when a resolved
 * group came back (a regression), and the environments a group was seen in, for the Errors
 * filters. The ingest writer keeps `status`, `regressed_at` and `environments` inside its one
 * group upsert, so none of this costs it a round trip.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('error_groups')
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('unresolved')
        .check(sql`status in ('unresolved', 'resolved', 'ignored')`),
    )
    /** When a member last set the status (null: never triaged). */
    .addColumn('status_changed_at', 'timestamptz')
    /** Set when an occurrence arrived while resolved (the group reopened); cleared by triage. */
    .addColumn('regressed_at', 'timestamptz')
    /** Distinct environments of its occurrences, sorted, capped (see the ingest writer). */
    .addColumn('environments', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .execute();
  // Groups that existed before: their environments from the occurrences still retained.
  await sql`
    update error_groups g set environments = e.environments
    from (
      select group_id, array_agg(distinct environment order by environment) as environments
      from error_occurrences where environment is not null group by group_id
    ) e
    where g.id = e.group_id`.execute(db);
  // The Errors list's default view is one status, most recently seen first.
  await db.schema
    .createIndex('error_groups_status_recent_idx')
    .on('error_groups')
    .columns(['workspace_id', 'status', 'last_seen_at desc', 'id desc'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('error_groups_status_recent_idx').ifExists().execute();
  await db.schema
    .alterTable('error_groups')
    .dropColumn('status')
    .dropColumn('status_changed_at')
    .dropColumn('regressed_at')
    .dropColumn('environments')
    .execute();
}

/** squawk rules this migration breaks (pnpm check:migrations), and why it stays as it is. */
export const squawkIgnore = {
  'require-concurrent-index-creation': `${SHIPPED_BEFORE_THE_RULES} Blocks writes to error_groups while the index builds.`,
};
