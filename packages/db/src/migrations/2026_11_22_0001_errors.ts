import { sql, type Kysely } from 'kysely';

const SOURCES = sql`source in ('ruby', 'js', 'api', 'mobile', 'node', 'python', 'php')`;

/**
 * Error ingestion: groups (one per fingerprint), occurrences (one per accepted report, pruned to a
 * retention limit per workspace) and a per-workspace count of retained occurrences.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('error_groups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    /** SHA-256 hex of class + top frame (or message prefix); computed once at write time. */
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('error_class', 'text', (c) => c.notNull())
    .addColumn('latest_message', 'text', (c) => c.notNull())
    /** The source of the latest occurrence (a fingerprint does not include the source). */
    .addColumn('source', 'text', (c) => c.notNull().check(SOURCES))
    /** Every occurrence ever grouped here: pruning old occurrences does not lower it. */
    .addColumn('occurrence_count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('first_seen_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_seen_at', 'timestamptz', (c) => c.notNull())
    .addUniqueConstraint('error_groups_workspace_fingerprint_key', ['workspace_id', 'fingerprint'])
    .execute();
  // The Errors page: most recently seen first, optionally one source; id breaks ties so pages are
  // stable.
  await db.schema
    .createIndex('error_groups_recent_idx')
    .on('error_groups')
    .columns(['workspace_id', 'last_seen_at desc', 'id desc'])
    .execute();
  await db.schema
    .createIndex('error_groups_source_recent_idx')
    .on('error_groups')
    .columns(['workspace_id', 'source', 'last_seen_at desc', 'id desc'])
    .execute();

  await db.schema
    .createTable('error_occurrences')
    /** Given when the HTTP request is accepted, so a retried write is a no-op (on conflict). */
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    .addColumn('group_id', 'text', (c) =>
      c.notNull().references('error_groups.id').onDelete('cascade'),
    )
    .addColumn('visitor_id', 'text', (c) => c.references('visitors.id').onDelete('set null'))
    .addColumn('error_class', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('backtrace', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('url', 'text')
    .addColumn('request_method', 'text')
    .addColumn('request_path', 'text')
    .addColumn('environment', 'text')
    .addColumn('app_version', 'text')
    .addColumn('context', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('source', 'text', (c) => c.notNull().check(SOURCES))
    .addColumn('occurred_at', 'timestamptz', (c) => c.notNull())
    .addColumn('received_at', 'timestamptz', (c) => c.notNull())
    .execute();
  // A group's page: its latest occurrences.
  await db.schema
    .createIndex('error_occurrences_group_idx')
    .on('error_occurrences')
    .columns(['group_id', 'occurred_at desc'])
    .execute();
  // Pruning, oldest first: ids are time-ordered from the moment of receipt, so (workspace_id, id)
  // orders a workspace's occurrences by arrival without a separate received_at index.
  await db.schema
    .createIndex('error_occurrences_workspace_idx')
    .on('error_occurrences')
    .columns(['workspace_id', 'id'])
    .execute();
  // Deleting a visitor nulls its occurrences; without this that is a scan of the whole table.
  await sql`create index error_occurrences_visitor_idx on error_occurrences (visitor_id)
    where visitor_id is not null`.execute(db);

  // The Errors page header shows a workspace's retained occurrences. count(*) over ~20,000 index
  // entries is a few ms when the visibility map is fresh, but this table churns (insert + prune)
  // all the time, so the scan keeps visiting the heap. A counter row per workspace costs one small
  // update per insert or delete statement and makes the header a primary-key read. It is kept by
  // statement-level triggers rather than by the worker so it cannot drift: whatever writes or
  // deletes occurrences (the worker, pruning, a test, a workspace cascade) is counted, and only
  // rows actually inserted are (ON CONFLICT DO NOTHING skips are not in the transition table).
  await db.schema
    .createTable('error_workspace_stats')
    .addColumn('workspace_id', 'text', (c) =>
      c.primaryKey().references('workspaces.id').onDelete('cascade'),
    )
    .addColumn('retained_occurrences', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();

  // Rows are upserted in workspace order so two statements touching the same workspaces lock
  // their counter rows in the same order and cannot deadlock on each other.
  await sql`
    create function error_occurrences_count_inserted() returns trigger
    language plpgsql as $$
    begin
      insert into error_workspace_stats (workspace_id, retained_occurrences)
      select workspace_id, count(*) from inserted group by workspace_id order by workspace_id
      on conflict (workspace_id) do update
        set retained_occurrences = error_workspace_stats.retained_occurrences
          + excluded.retained_occurrences;
      return null;
    end
    $$`.execute(db);
  // Plain update (no upsert) on delete: during a workspace cascade the workspace row is going
  // away and inserting a counter for it would violate the foreign key.
  await sql`
    create function error_occurrences_count_deleted() returns trigger
    language plpgsql as $$
    begin
      update error_workspace_stats s
        set retained_occurrences = s.retained_occurrences - d.n
        from (select workspace_id, count(*) as n from deleted group by workspace_id) d
        where s.workspace_id = d.workspace_id;
      return null;
    end
    $$`.execute(db);
  await sql`
    create trigger error_occurrences_count_inserted
      after insert on error_occurrences
      referencing new table as inserted
      for each statement execute function error_occurrences_count_inserted()`.execute(db);
  await sql`
    create trigger error_occurrences_count_deleted
      after delete on error_occurrences
      referencing old table as deleted
      for each statement execute function error_occurrences_count_deleted()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('error_occurrences').ifExists().execute();
  await sql`drop function if exists error_occurrences_count_inserted()`.execute(db);
  await sql`drop function if exists error_occurrences_count_deleted()`.execute(db);
  await db.schema.dropTable('error_workspace_stats').ifExists().execute();
  await db.schema.dropTable('error_groups').ifExists().execute();
}
