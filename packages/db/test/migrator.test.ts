import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createIndexConcurrently } from '../src/concurrent-index.js';
import type { FerryMigration } from '../src/ferry-migration.js';
import { migrateToLatest } from '../src/migrate.js';
import { migrations as ferryMigrations } from '../src/migrations/index.js';
import { scratchDatabase } from './scratch-database.js';
import { waitFor } from './wait-for.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  // Last made, first cleaned: a client ends before its database is dropped.
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A database the runner will create, and a client on it once it exists, both cleaned up. */
function scratch(): {
  url: string;
  query: <R extends pg.QueryResultRow>(text: string) => Promise<R[]>;
} {
  const database = scratchDatabase();
  let client: pg.Client | undefined;
  cleanups.push(async () => {
    await client?.end();
    await database.drop();
  });
  return {
    url: database.url,
    query: async <R extends pg.QueryResultRow>(text: string) => {
      if (!client) {
        client = new pg.Client({ connectionString: database.url });
        await client.connect();
      }
      return (await client.query<R>(text)).rows;
    },
  };
}

function migration(up: (db: Kysely<unknown>) => Promise<void>, transaction = true): FerryMigration {
  return { up, transaction };
}

const createWidgets = migration(async (db) => {
  await sql`create table widgets (id text primary key, name text not null)`.execute(db);
});

async function recorded(db: ReturnType<typeof scratch>): Promise<string[]> {
  const rows = await db.query<{ name: string }>('select name from kysely_migration order by name');
  return rows.map((row) => row.name);
}

/** Issue 47: the runner for migrations in and outside transactions (packages/db migrator.ts). */
describe('the migration runner', () => {
  it('builds a concurrent index that failed part way again on the next run', async () => {
    const db = scratch();
    const migrations = {
      '2030_01_01_0001_widgets': createWidgets,
      '2030_01_01_0002_two_widgets_one_name': migration(async (trx) => {
        await sql`insert into widgets values ('w1', 'gear'), ('w2', 'gear')`.execute(trx);
      }),
      '2030_01_01_0003_widget_names_unique': migration(async (connection) => {
        await createIndexConcurrently(connection, 'widgets_name_key', sql`on widgets (name)`, {
          unique: true,
        });
      }, false),
    };

    // The duplicate makes the concurrent build fail after Postgres has created the index entry.
    await expect(migrateToLatest(db.url, { migrations })).rejects.toThrow(
      /Migration 2030_01_01_0003_widget_names_unique failed: could not create unique index "widgets_name_key"/,
    );
    const leftover = await db.query<{ indisvalid: boolean }>(
      `select indisvalid from pg_index where indexrelid = 'widgets_name_key'::regclass`,
    );
    expect(leftover).toEqual([{ indisvalid: false }]);
    expect(await recorded(db)).toEqual([
      '2030_01_01_0001_widgets',
      '2030_01_01_0002_two_widgets_one_name',
    ]);

    await db.query(`delete from widgets where id = 'w2'`);
    const { applied } = await migrateToLatest(db.url, { migrations });

    expect(applied).toEqual(['2030_01_01_0003_widget_names_unique']);
    const index = await db.query<{ indisvalid: boolean; indisunique: boolean }>(
      `select indisvalid, indisunique from pg_index where indexrelid = 'widgets_name_key'::regclass`,
    );
    expect(index).toEqual([{ indisvalid: true, indisunique: true }]);
    expect(await recorded(db)).toHaveLength(3);
  });

  it('undoes a migration that fails in its transaction, and keeps those before it', async () => {
    const db = scratch();
    const migrations = {
      '2030_01_01_0001_widgets': createWidgets,
      '2030_01_01_0002_gadgets_then_fails': migration(async (trx) => {
        await sql`create table gadgets (id text primary key)`.execute(trx);
        await sql`select 1 / 0`.execute(trx);
      }),
    };

    await expect(migrateToLatest(db.url, { migrations })).rejects.toThrow(
      /Migration 2030_01_01_0002_gadgets_then_fails failed: division by zero/,
    );

    const tables = await db.query<{ table_name: string }>(
      `select table_name from information_schema.tables
        where table_schema = 'public' and table_name in ('widgets', 'gadgets')`,
    );
    expect(tables).toEqual([{ table_name: 'widgets' }]);
    expect(await recorded(db)).toEqual(['2030_01_01_0001_widgets']);
  });

  it('applies each migration once when two processes migrate at once', async () => {
    const db = scratch();
    const names = Object.keys(ferryMigrations).sort();

    const [first, second] = await Promise.all([migrateToLatest(db.url), migrateToLatest(db.url)]);

    // Kysely's advisory lock lets one run apply them all; the other then finds none pending.
    expect([...first.applied, ...second.applied].sort()).toEqual(names);
    expect(await recorded(db)).toEqual(names);
  });

  it('gives up waiting for a lock after lock_timeout, and tries again until it gets it', async () => {
    const db = scratch();
    const migrations: Record<string, FerryMigration> = {
      '2030_01_01_0001_widgets': createWidgets,
    };
    await migrateToLatest(db.url, { migrations });
    // A reader in a long transaction: ALTER TABLE needs the lock that its read holds.
    const reader = new pg.Client({ connectionString: db.url });
    await reader.connect();
    cleanups.push(() => reader.end());
    await reader.query('begin');
    await reader.query('select count(*) from widgets');

    migrations['2030_01_01_0002_widget_colour'] = migration(async (trx) => {
      await sql`alter table widgets add column colour text`.execute(trx);
    });
    const migrating = migrateToLatest(db.url, { migrations });
    migrating.catch(() => undefined);

    const waits = () =>
      db.query<{ query_start: Date }>(
        `select query_start from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'
            and query like 'alter table widgets add column colour%'`,
      );
    const first = await waitFor(
      async () => (await waits())[0]?.query_start,
      'the migration to wait for the lock the reader holds',
    );
    // A later ALTER waiting: the first gave up at lock_timeout (5 s) and the runner tried again.
    await waitFor(
      async () => (await waits()).find((row) => row.query_start > first),
      'the migration to give up its first wait (lock_timeout) and wait again',
    );
    await reader.query('commit');

    const { applied } = await migrating;
    expect(applied).toEqual(['2030_01_01_0002_widget_colour']);
    const columns = await db.query<{ column_name: string }>(
      `select column_name from information_schema.columns
        where table_name = 'widgets' and column_name = 'colour'`,
    );
    expect(columns).toHaveLength(1);
  });
});
