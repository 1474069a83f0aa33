import { sql, type Kysely } from 'kysely';

/** Workspace core: people, workspaces, seats, rooms, messages, feedback, tokens, visitors, outbox. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create unique index users_email_key on users (lower(email))`.execute(db);

  await db.schema
    .createTable('workspaces')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('public_key', 'text', (c) => c.notNull().unique())
    .addColumn('settings', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('members')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) =>
      c.notNull().check(sql`role in ('owner', 'admin', 'member', 'guest')`),
    )
    .addColumn('joined_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('left_at', 'timestamptz')
    .addUniqueConstraint('members_workspace_user_key', ['workspace_id', 'user_id'])
    .execute();
  await db.schema.createIndex('members_user_idx').on('members').column('user_id').execute();

  await db.schema
    .createTable('rooms')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    .addColumn('kind', 'text', (c) =>
      c.notNull().check(sql`kind in ('channel', 'dm', 'conversation')`),
    )
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.references('members.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('rooms_workspace_idx')
    .on('rooms')
    .columns(['workspace_id', 'kind'])
    .execute();

  await db.schema
    .createTable('room_members')
    .addColumn('room_id', 'text', (c) => c.notNull().references('rooms.id').onDelete('cascade'))
    .addColumn('member_id', 'text', (c) => c.notNull().references('members.id').onDelete('cascade'))
    .addColumn('joined_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('left_at', 'timestamptz')
    .addPrimaryKeyConstraint('room_members_pkey', ['room_id', 'member_id'])
    .execute();
  await db.schema
    .createIndex('room_members_member_idx')
    .on('room_members')
    .column('member_id')
    .execute();

  await db.schema
    .createTable('messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('room_id', 'text', (c) => c.notNull().references('rooms.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    .addColumn('author_kind', 'text', (c) =>
      c.notNull().check(sql`author_kind in ('member', 'webhook', 'agent', 'system')`),
    )
    .addColumn('author_member_id', 'text', (c) => c.references('members.id').onDelete('set null'))
    /** Id of the non-member author: incoming webhook key, agent, ... */
    .addColumn('author_ref', 'text')
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) =>
      c
        .notNull()
        .defaultTo('text')
        .check(sql`kind in ('text', 'progress', 'proposal')`),
    )
    .addColumn('metadata', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('messages_room_idx')
    .on('messages')
    .columns(['room_id', 'id'])
    .execute();

  await db.schema
    .createTable('feedback')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    .addColumn('room_id', 'text', (c) => c.notNull().references('rooms.id'))
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('new')
        .check(sql`status in ('new', 'triaged')`),
    )
    .addColumn('title', 'text')
    .addColumn('note', 'text', (c) => c.notNull())
    .addColumn('reporter_label', 'text')
    .addColumn('reporter_role', 'text')
    .addColumn('reporter_email', 'text')
    .addColumn('page_url', 'text')
    .addColumn('page_path', 'text')
    .addColumn('controller_action', 'text')
    .addColumn('viewport_width', 'integer')
    .addColumn('viewport_height', 'integer')
    .addColumn('partials', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('element_selector', 'text')
    .addColumn('element_tag', 'text')
    .addColumn('element_text', 'text')
    .addColumn('element_outer_html', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('feedback_workspace_idx')
    .on('feedback')
    .columns(['workspace_id', 'created_at desc'])
    .execute();

  await db.schema
    .createTable('api_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('scopes', sql`text[]`, (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.references('members.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_used_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .execute();
  await db.schema
    .createIndex('api_tokens_workspace_idx')
    .on('api_tokens')
    .column('workspace_id')
    .execute();

  await db.schema
    .createTable('visitors')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    /** The widget's visitor token (X-Service-Visitor); an identifier, not a credential. */
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('email', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_seen_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('visitors_workspace_token_key', ['workspace_id', 'token'])
    .execute();

  // Transactional outbox: a row per domain event, written in the transaction that caused it.
  // `seq` gives the relay a total order; `sent_at` marks rows handed to BullMQ.
  await db.schema
    .createTable('outbox')
    .addColumn('seq', 'bigserial', (c) => c.primaryKey())
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('sent_at', 'timestamptz')
    .execute();
  await sql`create index outbox_unsent_idx on outbox (seq) where sent_at is null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'outbox',
    'visitors',
    'api_tokens',
    'feedback',
    'messages',
    'room_members',
    'rooms',
    'members',
    'workspaces',
    'users',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
