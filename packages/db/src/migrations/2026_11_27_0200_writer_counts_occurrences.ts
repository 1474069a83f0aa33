import { sql, type Kysely } from 'kysely';

/**
 * The error writer counts the occurrences it inserts itself, at the end of its transaction (issue
 * #27 part 3). The statement trigger of 2026_11_22_0001 added to the workspace's counter row at
 * the occurrences INSERT, so that row stayed locked from the INSERT to the commit and every
 * concurrent batch of the workspace queued behind it. The writer now says so with a
 * transaction-local setting and the trigger leaves those rows to it; every other insert (fixtures,
 * a future importer) is still counted by the trigger, so the counter cannot drift.
 */
export const WRITER_COUNTS_SETTING = 'ferry.writer_counts_occurrences';

/** The trigger's count, as 2026_11_22_0001 wrote it (down restores exactly that). */
const COUNT_INSERTED = sql`
  insert into error_workspace_stats (workspace_id, retained_occurrences)
  select workspace_id, count(*) from inserted group by workspace_id order by workspace_id
  on conflict (workspace_id) do update
    set retained_occurrences = error_workspace_stats.retained_occurrences
      + excluded.retained_occurrences;`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create or replace function error_occurrences_count_inserted() returns trigger
    language plpgsql as $$
    begin
      if current_setting(${sql.lit(WRITER_COUNTS_SETTING)}, true) = 'on' then
        return null;
      end if;
      ${COUNT_INSERTED}
      return null;
    end
    $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    create or replace function error_occurrences_count_inserted() returns trigger
    language plpgsql as $$
    begin
      ${COUNT_INSERTED}
      return null;
    end
    $$`.execute(db);
}
