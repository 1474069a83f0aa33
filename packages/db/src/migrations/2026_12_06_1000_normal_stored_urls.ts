import { sql, type Kysely } from 'kysely';

/**
 * Issue 47: stored target URLs in their normal form. Since e36a020 every URL a user gives (room
 * hooks, error alert and event webhook endpoints, all in `outgoing_webhooks.target_url`, and agent
 * wake URLs) is stored as WHATWG's `new URL(x).href`, which is what Node dials; rows stored before
 * kept what was typed (`http://1.1.1.1\@127.0.0.1/`, which another reader may take for a different
 * host). This brings those rows to the same form. Only rows whose form differs are updated, by
 * primary key (row locks only); a value that does not parse is left as it is (every
 * stored one was parsed when it was saved, so none is expected).
 */
const TARGETS = [
  { table: 'outgoing_webhooks', column: 'target_url' },
  { table: 'agents', column: 'wake_url' },
] as const;

/**
 * Outside a transaction (README "Changing the schema": a backfill goes in batches, each its own
 * transaction): each UPDATE commits alone, and a run stopped part way is finished by the next, as
 * rows already in normal form are left alone.
 */
export const transaction = false;

/** Rows read per statement: the tables hold one row per hook or agent, so this is a few reads. */
const BATCH = 500;

function normalForm(raw: string): string | undefined {
  try {
    return new URL(raw).href;
  } catch {
    return undefined;
  }
}

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const { table, column } of TARGETS) {
    for (let after = ''; ;) {
      const rows = await sql<{ id: string; url: string }>`
        select id, ${sql.ref(column)} as url from ${sql.table(table)}
        where id > ${after} and ${sql.ref(column)} is not null
        order by id limit ${BATCH}`.execute(db);
      const changed = rows.rows.flatMap((row) => {
        const normal = normalForm(row.url);
        return normal !== undefined && normal !== row.url ? [{ id: row.id, url: normal }] : [];
      });
      if (changed.length) {
        await sql`
          update ${sql.table(table)} as t set ${sql.ref(column)} = v.url
          from (values ${sql.join(changed.map((row) => sql`(${row.id}, ${row.url})`))})
            as v (id, url)
          where t.id = v.id`.execute(db);
      }
      if (rows.rows.length < BATCH) break;
      after = rows.rows.at(-1)!.id;
    }
  }
}

/** Nothing to undo: the normal form names the same target, and the code before reads it as well. */
export async function down(): Promise<void> {}
