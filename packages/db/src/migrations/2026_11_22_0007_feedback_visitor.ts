import type { Kysely } from 'kysely';

/** The widget's visitor who filed a ticket (X-Service-Visitor), shown on the ticket page. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('feedback')
    .addColumn('visitor_id', 'text', (c) => c.references('visitors.id').onDelete('set null'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('feedback').dropColumn('visitor_id').execute();
}
