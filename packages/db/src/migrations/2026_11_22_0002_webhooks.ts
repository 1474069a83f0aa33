import { sql, type Kysely } from 'kysely';

/**
 * Room webhooks. Incoming keys are looked up by hash and kept sealed (AES-GCM) so the key page can
 * reveal them again. Outgoing hooks keep their signing secret sealed, plus the previous secret while
 * a rotation's 24 h overlap lasts. A delivery is one message owed to one hook (its id is the stable
 * `webhook-id`); each try is an attempt row (the delivery log).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('incoming_webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    .addColumn('room_id', 'text', (c) => c.notNull().references('rooms.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_prefix', 'text', (c) => c.notNull())
    .addColumn('key_sealed', 'text', (c) => c.notNull())
    /** The creator's seat: permissions resolve against it on every post. */
    .addColumn('created_by', 'text', (c) => c.notNull().references('members.id'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('rotated_at', 'timestamptz')
    .addColumn('disabled_at', 'timestamptz')
    .addColumn('deleted_at', 'timestamptz')
    .execute();
  await db.schema
    .createIndex('incoming_webhooks_room_idx')
    .on('incoming_webhooks')
    .columns(['room_id', 'created_at'])
    .execute();

  // Idempotency records (24 h): the unique key makes a concurrent duplicate wait for the first
  // transaction and then find its message.
  await db.schema
    .createTable('incoming_webhook_requests')
    .addColumn('webhook_id', 'text', (c) =>
      c.notNull().references('incoming_webhooks.id').onDelete('cascade'),
    )
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('incoming_webhook_requests_pkey', ['webhook_id', 'idempotency_key'])
    .execute();
  await db.schema
    .createIndex('incoming_webhook_requests_created_idx')
    .on('incoming_webhook_requests')
    .column('created_at')
    .execute();

  await db.schema
    .createTable('outgoing_webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    .addColumn('room_id', 'text', (c) => c.notNull().references('rooms.id').onDelete('cascade'))
    .addColumn('target_url', 'text', (c) => c.notNull())
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('previous_secret_sealed', 'text')
    .addColumn('previous_secret_expires_at', 'timestamptz')
    .addColumn('state', 'text', (c) =>
      c
        .notNull()
        .defaultTo('enabled')
        .check(sql`state in ('enabled', 'disabled')`),
    )
    .addColumn('disabled_reason', 'text')
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_by', 'text', (c) => c.references('members.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('outgoing_webhooks_room_idx')
    .on('outgoing_webhooks')
    .columns(['room_id', 'state'])
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('hook_id', 'text', (c) =>
      c.notNull().references('outgoing_webhooks.id').onDelete('cascade'),
    )
    .addColumn('message_id', 'text', (c) => c.references('messages.id').onDelete('set null'))
    .addColumn('event', 'text', (c) => c.notNull())
    /** The exact body sent (and signed), so every retry sends the same bytes. */
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('pending')
        .check(sql`status in ('pending', 'succeeded', 'failed', 'held')`),
    )
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'timestamptz')
    .addColumn('last_status_code', 'integer')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('delivered_at', 'timestamptz')
    .execute();
  // One delivery per message per hook, so a re-relayed event cannot owe a message twice.
  await sql`create unique index webhook_deliveries_hook_message_key on webhook_deliveries (hook_id, message_id) where message_id is not null and event = 'message_created'`.execute(
    db,
  );
  await db.schema
    .createIndex('webhook_deliveries_hook_order_idx')
    .on('webhook_deliveries')
    .columns(['hook_id', 'id'])
    .execute();
  await sql`create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at) where status = 'pending'`.execute(
    db,
  );

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('delivery_id', 'text', (c) =>
      c.notNull().references('webhook_deliveries.id').onDelete('cascade'),
    )
    .addColumn('attempted_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('status_code', 'integer')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('response_excerpt', 'text')
    .addColumn('error', 'text')
    .execute();
  await db.schema
    .createIndex('webhook_attempts_delivery_idx')
    .on('webhook_attempts')
    .columns(['delivery_id', 'attempted_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'webhook_attempts',
    'webhook_deliveries',
    'outgoing_webhooks',
    'incoming_webhook_requests',
    'incoming_webhooks',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
