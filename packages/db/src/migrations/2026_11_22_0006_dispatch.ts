import { sql, type Kysely } from 'kysely';
import { SHIPPED_BEFORE_THE_RULES } from '../ferry-migration.js';

/**
 * Hosted dispatch (DESIGN.md "Hosted dispatch"): the workspace's GitHub App installation, the
 * repositories it reaches (linked and enabled by an admin), members' GitHub authorizations (user
 * and refresh tokens sealed with SecretBox), the workspace's dispatch identity, and dispatches.
 * A dispatch row records each finished step (issue, task or assignment, triage) before the next
 * starts, so a retried job never repeats one; one is in flight per ticket and repo.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('github_installations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().unique().references('workspaces.id').onDelete('cascade'),
    )
    /** GitHub's installation id (a number, kept as text: it is only ever sent back). */
    .addColumn('installation_id', 'text', (c) => c.notNull())
    .addColumn('account_login', 'text', (c) => c.notNull())
    .addColumn('connected_by', 'text', (c) => c.references('members.id').onDelete('set null'))
    .addColumn('repos_synced_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('github_repos')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    .addColumn('github_id', 'text', (c) => c.notNull())
    .addColumn('node_id', 'text', (c) => c.notNull())
    .addColumn('full_name', 'text', (c) => c.notNull())
    .addColumn('default_branch', 'text', (c) => c.notNull())
    .addColumn('linked', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('enabled', 'boolean', (c) => c.notNull().defaultTo(false))
    /** The installation listed it at the last sync: it can open issues there. */
    .addColumn('reachable', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('github_repos_github_id_uq', ['workspace_id', 'github_id'])
    .execute();

  await db.schema
    .createTable('github_authorizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    .addColumn('member_id', 'text', (c) =>
      c.notNull().unique().references('members.id').onDelete('cascade'),
    )
    .addColumn('github_login', 'text', (c) => c.notNull())
    .addColumn('github_user_id', 'text', (c) => c.notNull())
    .addColumn('access_token_sealed', 'text', (c) => c.notNull())
    /** Null when GitHub issued a token that does not expire (expiring tokens turned off). */
    .addColumn('access_expires_at', 'timestamptz')
    .addColumn('refresh_token_sealed', 'text')
    .addColumn('refresh_expires_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .alterTable('workspaces')
    .addColumn('dispatch_member_id', 'text', (c) => c.references('members.id').onDelete('set null'))
    .execute();

  await db.schema
    .createTable('dispatches')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    .addColumn('feedback_id', 'text', (c) =>
      c.notNull().references('feedback.id').onDelete('cascade'),
    )
    .addColumn('repo_id', 'text', (c) => c.notNull().references('github_repos.id'))
    /** `api` (a token: no person) or `member` (the ticket page's button). */
    .addColumn('started_via', 'text', (c) =>
      c.notNull().check(sql`started_via in ('api', 'member')`),
    )
    .addColumn('started_by_member_id', 'text', (c) =>
      c.references('members.id').onDelete('set null'),
    )
    .addColumn('started_by_token_id', 'text', (c) =>
      c.references('api_tokens.id').onDelete('set null'),
    )
    /** Whose GitHub authorization starts the task: the identity, or the clicker without one. */
    .addColumn('run_as_member_id', 'text', (c) => c.references('members.id').onDelete('set null'))
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('queued')
        .check(
          sql`status in ('queued', 'issue_opened', 'agent_started', 'assigned', 'pr_opened', 'waiting_on_user', 'completed', 'failed')`,
        ),
    )
    /** Set before the issue (or task) request goes out: a re-run then looks for it first. */
    .addColumn('issue_requested_at', 'timestamptz')
    .addColumn('task_requested_at', 'timestamptz')
    .addColumn('issue_number', 'integer')
    .addColumn('issue_node_id', 'text')
    .addColumn('issue_url', 'text')
    .addColumn('task_id', 'text')
    .addColumn('task_state', 'text')
    .addColumn('pr_url', 'text')
    .addColumn('error', 'text')
    .addColumn('triaged_at', 'timestamptz')
    .addColumn('polls', 'integer', (c) => c.notNull().defaultTo(0))
    /** GitHub failures in a row (outage, 5xx, timeout, rate limit); reset by any success. */
    .addColumn('retries', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('finished_at', 'timestamptz')
    .execute();
  // SPEC.md: one in flight per ticket and repo, enforced by Postgres (20 concurrent calls, one wins).
  await sql`create unique index dispatches_in_flight_uq on dispatches (feedback_id, repo_id) where status not in ('completed', 'failed')`.execute(
    db,
  );
  await sql`create index dispatches_feedback_idx on dispatches (feedback_id, created_at)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('dispatches').execute();
  await db.schema.alterTable('workspaces').dropColumn('dispatch_member_id').execute();
  await db.schema.dropTable('github_authorizations').execute();
  await db.schema.dropTable('github_repos').execute();
  await db.schema.dropTable('github_installations').execute();
}

/** squawk rules this migration breaks (pnpm check:migrations), and why it stays as it is. */
export const squawkIgnore = {
  'adding-foreign-key-constraint': `${SHIPPED_BEFORE_THE_RULES} The new column is empty: the check reads workspaces (one row each), briefly.`,
};
