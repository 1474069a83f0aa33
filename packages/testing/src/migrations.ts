import { randomBytes } from 'node:crypto';
import {
  createDb,
  createMigrator,
  ensureDatabase,
  migrateToLatest,
  migrations,
  type Db,
} from '@ferry/db';
import { resolveStores } from './stores.js';
import { dropDatabase, withDatabase } from './template.js';

/** A database whose schema stops just before one migration, to test that migration on old rows. */
export interface DatabaseBefore {
  db: Db;
  /** Applies the named migration and every one after it. */
  migrateToLatest(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A fresh database migrated up to (not including) `migration`. Tests insert rows the way the old
 * schema stored them, then migrate and check the rows still work.
 */
export async function createDatabaseBefore(migration: string): Promise<DatabaseBefore> {
  const names = Object.keys(migrations).sort();
  const index = names.indexOf(migration);
  if (index < 1) throw new Error(`No migration before ${migration}`);
  const serverUrl = process.env.FERRY_TEST_DATABASE_URL ?? (await resolveStores()).databaseUrl;
  const name = `ferry_t_${randomBytes(6).toString('hex')}`;
  const url = withDatabase(serverUrl, name);
  await ensureDatabase(url);
  const db = createDb(url, { max: 2 });
  const { error } = await createMigrator(db).migrateTo(names[index - 1]!);
  if (error) throw error instanceof Error ? error : new Error(JSON.stringify(error));
  return {
    db,
    migrateToLatest: async () => {
      await migrateToLatest(url);
    },
    close: async () => {
      await db.destroy();
      await dropDatabase(serverUrl, name);
    },
  };
}
