import pg from 'pg';
import { ensureDatabase } from '@ferry/db';
import { runTool } from './tools.js';

/**
 * The connection for pg_dump/pg_restore: the URL without its password (libpq reads URLs, query
 * parameters such as sslmode included), and the password in PGPASSWORD, out of `ps`.
 */
function libpq(databaseUrl: string): { dbname: string; env: Record<string, string> } {
  const url = new URL(databaseUrl);
  const password = decodeURIComponent(url.password);
  url.password = '';
  return { dbname: url.toString(), env: password ? { PGPASSWORD: password } : {} };
}

export function databaseName(databaseUrl: string): string {
  return decodeURIComponent(new URL(databaseUrl).pathname.replace(/^\//, ''));
}

async function withClient<T>(
  databaseUrl: string,
  use: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

export interface PostgresFacts {
  serverVersion: string;
  /** Applied migrations, by name (Kysely's table); empty for a database never migrated. */
  migrations: string[];
  /** The server's clock now: the Redis snapshot is dated by it (see restore.ts, relayAgainSince). */
  now: Date;
}

export async function postgresFacts(databaseUrl: string): Promise<PostgresFacts> {
  return withClient(databaseUrl, async (client) => {
    const facts = await client.query<{ version: string; now: Date; migrated: boolean }>(
      `select current_setting('server_version') as version, clock_timestamp() as now,
              to_regclass('kysely_migration') is not null as migrated`,
    );
    const { version, now, migrated } = facts.rows[0]!;
    const migrations = migrated
      ? (await client.query<{ name: string }>('select name from kysely_migration order by name'))
          .rows
      : [];
    return { serverVersion: version, now, migrations: migrations.map((row) => row.name) };
  });
}

/**
 * A dump in pg_dump's custom format (compressed, restorable table by table). pg_dump reads the
 * whole database in one repeatable-read transaction, so the dump is one consistent snapshot while
 * Ferry keeps writing. `--no-owner`: the restore's role owns what it creates.
 */
export async function dumpPostgres(databaseUrl: string, file: string): Promise<void> {
  const { dbname, env } = libpq(databaseUrl);
  await runTool(
    'pg_dump',
    ['--format=custom', '--no-owner', `--file=${file}`, `--dbname=${dbname}`],
    env,
  );
}

/**
 * Restores a dump into an empty database in one transaction: a failure leaves the database as
 * empty as it was, never half restored.
 */
export async function restorePostgres(databaseUrl: string, file: string): Promise<void> {
  const { dbname, env } = libpq(databaseUrl);
  await runTool(
    'pg_restore',
    ['--no-owner', '--single-transaction', '--exit-on-error', `--dbname=${dbname}`, file],
    env,
  );
}

/** Tables, views and sequences outside the system schemas: 0 for a database fit to restore into. */
export async function relationCount(databaseUrl: string): Promise<number | 'missing'> {
  const name = databaseName(databaseUrl);
  const exists = await withClient(adminUrl(databaseUrl), async (client) => {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    return found.rowCount !== 0;
  });
  if (!exists) return 'missing';
  return withClient(databaseUrl, async (client) => {
    const counted = await client.query<{ relations: number }>(
      `select count(*)::int as relations
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname not in ('pg_catalog', 'information_schema')
          and n.nspname not like 'pg\\_toast%' and n.nspname not like 'pg\\_temp%'
          and c.relkind in ('r', 'p', 'v', 'm', 'S', 'f')`,
    );
    return counted.rows[0]!.relations;
  });
}

function adminUrl(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  url.pathname = '/postgres';
  return url.toString();
}

/**
 * `--force`: the database dropped and created empty, so nothing of what was there (a table a
 * newer migration made, rows the dump does not hold) survives beside the restored data. Plain
 * DROP DATABASE: it refuses while anything is connected, and Ferry must be stopped for a restore.
 */
export async function recreateDatabase(databaseUrl: string): Promise<void> {
  const name = databaseName(databaseUrl);
  await withClient(adminUrl(databaseUrl), async (client) => {
    try {
      await client.query(`drop database if exists "${name.replace(/"/g, '""')}"`);
    } catch (error) {
      if ((error as { code?: string }).code === '55006') {
        throw new Error(
          `Database ${name} is in use: stop every Ferry process (and other clients) before a restore.`,
          { cause: error },
        );
      }
      throw error;
    }
  });
  await ensureDatabase(databaseUrl);
}

/**
 * Outbox events marked sent at or after `since` are marked unsent, so the relay hands them to
 * their queues again. Those are the events whose jobs may have reached Redis after its snapshot:
 * without this, a message stored in the dump whose fan-out job the snapshot missed would never be
 * delivered. The relay's consumers are at-least-once by contract (outbox.ts: a re-add of a job
 * still in Redis is ignored, and each consumer dedupes on the event id), so relaying an event
 * twice costs a job, not a second delivery.
 */
export async function relayAgainSince(databaseUrl: string, since: Date): Promise<number> {
  return withClient(databaseUrl, async (client) => {
    const updated = await client.query(
      'update outbox set sent_at = null where sent_at is not null and sent_at >= $1',
      [since],
    );
    return updated.rowCount ?? 0;
  });
}
