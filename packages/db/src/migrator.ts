import { sql, type Kysely } from 'kysely';
import { Migrator, type Migration } from 'kysely/migration';
import { migrations as ferryMigrations } from './migrations/index.js';
import { RecordOnce, recordMigration } from './migration-record.js';
import { retryOnLockTimeout } from './lock-retry.js';
import type { FerryMigration } from './ferry-migration.js';

/**
 * Timeouts every migration runs under (the statements are in what `pnpm check:migrations` lints).
 * lock_timeout: DDL waiting for a lock makes every later query on that table queue behind it, so
 * a migration gives up after a few seconds instead (and is tried again, see lock-retry.ts).
 * statement_timeout bounds a hang; a migration outside a transaction has none, because an index
 * built CONCURRENTLY on a large table takes as long as it takes while blocking no one.
 */
export const MIGRATION_TIMEOUTS = {
  inTransaction: { lockTimeout: '5s', statementTimeout: '5min' },
  outsideTransaction: { lockTimeout: '5s', statementTimeout: '0' },
} as const;

export interface MigratorOptions {
  /** The migrations to apply (tests and the migration check pass their own lists). */
  migrations?: Record<string, FerryMigration>;
  /** Seen around each prepared migration (the migration check records each one's SQL with it). */
  wrap?: (name: string, migration: Migration) => Migration;
}

/**
 * Kysely's Migrator, set up for migrations that may opt out of a transaction. Kysely would run
 * every pending migration in one transaction, where CREATE INDEX CONCURRENTLY fails; so it runs
 * them without one (`disableTransactions`) and each migration brings its own (`prepare`). Kysely
 * still holds its session-level advisory lock on the one connection for the whole run, so two
 * processes migrating at once apply each migration once, one after the other.
 */
export function createMigrator<DB>(db: Kysely<DB>, options: MigratorOptions = {}): Migrator {
  const list = options.migrations ?? ferryMigrations;
  const wrap = options.wrap ?? ((_name: string, migration: Migration) => migration);
  const prepared = Object.fromEntries(
    Object.entries(list).map(([name, migration]) => [name, wrap(name, prepare(name, migration))]),
  );
  return new Migrator({
    db: db.withPlugin(new RecordOnce()),
    provider: { getMigrations: () => Promise.resolve(prepared) },
    disableTransactions: true,
  });
}

function prepare(name: string, migration: FerryMigration): Migration {
  const up =
    migration.transaction === false
      ? async (db: Kysely<unknown>) => {
          const { lockTimeout, statementTimeout } = MIGRATION_TIMEOUTS.outsideTransaction;
          await sql`set lock_timeout = ${sql.lit(lockTimeout)}`.execute(db);
          await sql`set statement_timeout = ${sql.lit(statementTimeout)}`.execute(db);
          try {
            await migration.up(db);
            await recordMigration(db, name);
          } finally {
            await sql`reset lock_timeout`.execute(db);
            await sql`reset statement_timeout`.execute(db);
          }
        }
      : (db: Kysely<unknown>) =>
          db.transaction().execute(async (trx) => {
            const { lockTimeout, statementTimeout } = MIGRATION_TIMEOUTS.inTransaction;
            await sql`set local lock_timeout = ${sql.lit(lockTimeout)}`.execute(trx);
            await sql`set local statement_timeout = ${sql.lit(statementTimeout)}`.execute(trx);
            await migration.up(trx);
            await recordMigration(trx, name);
          });
  // Undone (by tests only) the way it was done: in a transaction, or outside one.
  const undo = (db: Kysely<unknown>) => migration.down?.(db) ?? Promise.resolve();
  const down =
    migration.transaction === false
      ? undo
      : (db: Kysely<unknown>) => db.transaction().execute((trx) => undo(trx));
  return {
    up: (db: Kysely<unknown>) => retryOnLockTimeout(name, () => up(db)),
    ...(migration.down ? { down } : {}),
  };
}
