import { Kysely, PostgresDialect, type Transaction } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;
/** Either a plain connection or a transaction: domain functions take this so callers can compose. */
export type DbOrTx = Kysely<Database>;

// bigint (bigserial) as string, never a lossy number.
pg.types.setTypeParser(20, (value) => value);

export function createDb(databaseUrl: string, options: { max?: number } = {}): Db {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: options.max ?? 10 });
  // An idle client error (server restart) must not crash the process; the pool reconnects.
  pool.on('error', () => undefined);
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

/** Postgres answers a trivial query. Used by /readyz. */
export async function pingDb(db: Db): Promise<void> {
  await db.selectNoFrom((eb) => eb.lit(1).as('one')).execute();
}
