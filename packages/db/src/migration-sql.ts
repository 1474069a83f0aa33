import { randomBytes } from 'node:crypto';
import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import pg from 'pg';
import type { FerryMigration } from './ferry-migration.js';
import { ensureDatabase } from './migrate.js';
import { createMigrator } from './migrator.js';

/** What one migration sent to Postgres, in order, for squawk to lint. */
export interface MigrationSql {
  name: string;
  statements: string[];
  squawkIgnore: Readonly<Record<string, string>>;
}

function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl(serverUrl, 'postgres') });
  await client.connect();
  try {
    await client.query(`drop database if exists "${name}" with (force)`);
  } finally {
    await client.end();
  }
}

/** A statement as sent; its parameters, if any, in a comment before it (squawk reads `$1`). */
function render(query: CompiledQuery): string {
  const parameters = query.parameters.length
    ? `-- parameters: ${JSON.stringify(query.parameters)}\n`
    : '';
  return `${parameters}${query.sql.trim()};`;
}

/**
 * Applies the migrations to a scratch database on the server through the same runner as a
 * deployment (createMigrator), and returns the SQL each migration ran, its transaction, timeouts
 * and record included: exactly what a deployment's database receives. The database is dropped
 * after.
 */
export async function captureMigrationSql(
  serverUrl: string,
  migrations: Record<string, FerryMigration>,
): Promise<MigrationSql[]> {
  const name = `ferry_migration_sql_${randomBytes(6).toString('hex')}`;
  const url = databaseUrl(serverUrl, name);
  await ensureDatabase(url);
  const captured: MigrationSql[] = [];
  let current: MigrationSql | undefined;
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  // pg-pool's end() resolves before its client's socket has closed, so the `drop ... with
  // (force)` after it may terminate that backend first (57P01): the error then arrives on a pool
  // being ended, and without a listener it would crash the check. Before that, an idle
  // connection's error is unexpected and still ends the check loudly.
  let ending = false;
  pool.on('error', (error) => {
    if (!ending) throw error;
  });
  const db = new Kysely<unknown>({
    dialect: new PostgresDialect({ pool }),
    // Kysely logs every statement on the migration's connection, begin and commit included.
    log: (event) => {
      if (event.level === 'query') current?.statements.push(render(event.query));
    },
  });
  try {
    const migrator = createMigrator(db, {
      migrations,
      wrap: (migrationName, migration) => ({
        ...migration,
        up: async (connection) => {
          current = {
            name: migrationName,
            statements: [],
            squawkIgnore: migrations[migrationName]?.squawkIgnore ?? {},
          };
          captured.push(current);
          try {
            await migration.up(connection);
          } finally {
            current = undefined;
          }
        },
      }),
    });
    const { error, results } = await migrator.migrateToLatest();
    if (error) {
      const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
      const reason = error instanceof Error ? error.message : JSON.stringify(error);
      throw new Error(`Migration ${failed} failed: ${reason}`, { cause: error });
    }
    return captured;
  } finally {
    ending = true;
    await db.destroy();
    await dropDatabase(serverUrl, name);
  }
}

/** The .sql file squawk reads: the migration's exceptions (rule, then why) and its statements. */
export function migrationSqlFile(migration: MigrationSql): string {
  const exceptions = Object.entries(migration.squawkIgnore).map(
    ([rule, reason]) => `-- squawk-ignore-file ${rule}\n--   ${reason.replace(/\n/g, ' ')}\n`,
  );
  return `-- ${migration.name}\n${exceptions.join('')}${migration.statements.join('\n')}\n`;
}
