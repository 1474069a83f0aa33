import { sql, type Kysely } from 'kysely';

/**
 * Issue 43, bulk actions: resolve, ignore, reopen, assign or merge many error groups at once.
 *
 * One row per action. `group_ids` is the selection as it was when the action was asked for (the
 * search's matches, or the ids sent), in id order: every group it names is acted on, whatever the
 * writer does to them meanwhile (new occurrences move a group in the list's order, never here).
 * `processed` is the cursor into it, advanced in the same transaction as each chunk's update, so
 * a job killed mid-way and run again goes on where the last commit left it, never twice over a
 * group. `changed` counts the groups the action really found (one merged away meanwhile is not).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table error_bulk_actions (
      id text primary key,
      workspace_id text not null references workspaces (id) on delete cascade,
      created_by text references members (id) on delete set null,
      action text not null
        check (action in ('resolve', 'ignore', 'unresolve', 'assign', 'merge')),
      assignee_member_id text references members (id) on delete set null,
      target_group_id text,
      query text,
      group_ids text[] not null,
      total integer not null,
      processed integer not null default 0,
      changed integer not null default 0,
      status text not null default 'queued'
        check (status in ('queued', 'running', 'done', 'failed')),
      error text,
      created_at timestamptz not null default now(),
      finished_at timestamptz
    )`.execute(db);
  await sql`create index error_bulk_actions_workspace_idx
    on error_bulk_actions (workspace_id, created_at desc)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table error_bulk_actions`.execute(db);
}
