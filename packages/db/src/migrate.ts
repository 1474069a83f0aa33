import pg from 'pg';
import { createDb } from './client.js';
import { createMigrator, type MigratorOptions } from './migrator.js';
import { migrations } from './migrations/index.js';

/** Creates the database named in the URL when it does not exist yet (first start on a laptop). */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!name) return;
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const exists = async () =>
      (await client.query('select 1 from pg_database where datname = $1', [name])).rowCount !== 0;
    if (!(await exists())) {
      await client
        .query(`create database "${name.replace(/"/g, '""')}"`)
        .catch(async (error: unknown) => {
          // Another process created it between our check and create: Postgres answers 42P04, or
          // a unique violation on pg_database when both creates ran at once.
          if (!(await exists())) throw error;
        });
    }
  } finally {
    await client.end();
  }
}

/**
 * The migration level this code knows, oldest first (Kysely applies them in name order): a
 * database whose applied migrations include a name not here was migrated by newer code (backups
 * refuse to restore it, packages/backup).
 */
export const MIGRATION_NAMES: readonly string[] = Object.keys(migrations).sort();

export interface MigrateResult {
  applied: string[];
}

/**
 * Applies every pending migration in order (each in its own transaction unless it declares
 * otherwise, see migrator.ts); throws, naming the one that failed, if one fails. Those before it
 * stay applied.
 */
export async function migrateToLatest(
  databaseUrl: string,
  options: MigratorOptions = {},
): Promise<MigrateResult> {
  await ensureDatabase(databaseUrl);
  const db = createDb(databaseUrl, { max: 1 });
  try {
    const { error, results } = await createMigrator(db, options).migrateToLatest();
    if (error) {
      const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
      throw new Error(
        `Migration ${failed} failed: ${error instanceof Error ? error.message : JSON.stringify(error)}`,
        { cause: error },
      );
    }
    return { applied: (results ?? []).map((r) => r.migrationName) };
  } finally {
    await db.destroy();
  }
}
