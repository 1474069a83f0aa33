import type { Kysely } from 'kysely';

/**
 * One of Ferry's migrations (a file in migrations/). By default it runs in a transaction of its
 * own, recorded as applied in that same transaction: all of it or none of it.
 */
export interface FerryMigration {
  up(db: Kysely<unknown>): Promise<void>;
  down?(db: Kysely<unknown>): Promise<void>;
  /**
   * `false`: run outside any transaction, for what Postgres refuses inside one (CREATE INDEX
   * CONCURRENTLY). Such a migration is not atomic, so it must be safe to run again after failing
   * part way (see createIndexConcurrently); it is recorded as applied once it has finished.
   */
  transaction?: boolean;
  /**
   * squawk rules that do not apply to this migration, each with the reason (`pnpm
   * check:migrations` lints the SQL each migration runs). Only for migrations that shipped before
   * the rule; a new migration is brought to the rules instead.
   */
  squawkIgnore?: Readonly<Record<string, string>>;
}

/**
 * The start of the reason a migration that shipped before the migration rules (issue 47) gives for
 * excepting one: a shipped migration is kept as deployments applied it; what follows it says what
 * the migration holds locked, on which table, for an upgrade that still has it to run.
 */
export const SHIPPED_BEFORE_THE_RULES = 'Shipped before the migration rules, kept as applied.';
