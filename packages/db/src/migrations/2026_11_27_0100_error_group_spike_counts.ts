import { sql, type Kysely } from 'kysely';

/**
 * Frequency-spike alerts (issue 26) keep each group's recent occurrences on the group's own row,
 * updated by the error writer's upsert that already rewrites the row for every batch: no extra
 * statement and no extra row version. Counting error_occurrences rows instead read up to the
 * rule's `count` index entries and their fresh heap rows per group per batch (22% of the writer's
 * throughput on the alerts bench, unbounded for a rule such as 100,000 in a day); a counter table
 * of its own still cost ~5% (a second row version per group per batch).
 *
 * `spike_slots` holds the occurrences of the last 7 slots of `spike_slot_seconds` (a sixth of the
 * rule's window), newest first; `spike_latest_slot` is the newest slot's number (epoch seconds /
 * slot seconds). Their sum covers the window and at most one slot more, so a spike is never missed
 * and a burst may count up to a sixth of the window early. Null while the workspace has no spike
 * rule (counting starts with the rule).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table error_groups
      add column spike_slot_seconds integer check (spike_slot_seconds > 0),
      add column spike_latest_slot bigint,
      add column spike_slots integer[] check (cardinality(spike_slots) = 7)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table error_groups
      drop column spike_slot_seconds,
      drop column spike_latest_slot,
      drop column spike_slots`.execute(db);
}
