import { sql, type Kysely } from 'kysely';

/**
 * What `service('identify', {label, role, email})` says about a widget visitor, kept on the
 * visitor (label in `name`, as before; the role here): the Errors page names an identified
 * visitor by it, never by their token.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table visitors add column role text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table visitors drop column role`.execute(db);
}
