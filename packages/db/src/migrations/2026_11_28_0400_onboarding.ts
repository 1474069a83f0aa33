import { sql, type Kysely } from 'kysely';

/**
 * The Dashboard's "guided start" checklist (issue 42).
 *
 * `onboarding_dismissals`: a workspace whose admin hid the checklist, for everyone in it. Per
 * workspace, not per member: its items are facts about the workspace (a first error, a first
 * webhook key), done once for all, so "we are set up" is the workspace's to say. Who hid it is
 * kept for the record; a seat that goes away leaves the dismissal standing.
 *
 * `ferry_onboarding` notifications: three of the five items (an invite or a second member, an
 * incoming webhook key, an agent's first contact) are rows nothing announces to the pages. Each
 * insert notifies the workspace's id at commit, whoever wrote it (the web pages, the agent
 * gateway, a script), and each web process ticks its open Dashboards (features/dashboard/live.ts).
 * Inserts only, row-level: these tables are written rarely, and Postgres folds a transaction's
 * identical notifications into one. Messages and error groups already have their announcements.
 */
const TABLES = ['workspace_invites', 'members', 'incoming_webhooks', 'agents'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table onboarding_dismissals (
      workspace_id text primary key references workspaces (id) on delete cascade,
      dismissed_by text references members (id) on delete set null,
      dismissed_at timestamptz not null default now()
    )`.execute(db);
  await sql`
    create or replace function ferry_onboarding_step() returns trigger
    language plpgsql as $$
    begin
      perform pg_notify('ferry_onboarding', new.workspace_id);
      return null;
    end;
    $$`.execute(db);
  for (const table of TABLES) {
    await sql`
      create trigger ${sql.raw(`${table}_onboarding_notify`)}
      after insert on ${sql.table(table)}
      for each row execute function ferry_onboarding_step()`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) {
    await sql`drop trigger if exists ${sql.raw(`${table}_onboarding_notify`)} on ${sql.table(table)}`.execute(
      db,
    );
  }
  await sql`drop function if exists ferry_onboarding_step()`.execute(db);
  await sql`drop table if exists onboarding_dismissals`.execute(db);
}
