import {
  sql,
  type InsertQueryNode,
  type Kysely,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';
import { DEFAULT_MIGRATION_TABLE } from 'kysely/migration';

/**
 * Records a migration as applied, from inside the migration's own transaction, so the change and
 * its record commit together: a process killed in between leaves neither, and the next run applies
 * the migration again instead of finding its tables already there. The timestamp follows Kysely's
 * format and order (never before the last one, even if the clock went back), which Kysely checks
 * when it reads the table.
 */
export async function recordMigration(db: Kysely<unknown>, name: string): Promise<void> {
  await sql`insert into ${sql.table(DEFAULT_MIGRATION_TABLE)} (name, timestamp)
    select ${name}, to_char(greatest(clock_timestamp(),
        max(timestamp)::timestamptz + interval '1 millisecond') at time zone 'UTC',
      'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
    from ${sql.table(DEFAULT_MIGRATION_TABLE)}`.execute(db);
}

function isMigrationRecord(node: RootOperationNode): node is InsertQueryNode {
  return (
    node.kind === 'InsertQueryNode' && node.into?.table.identifier.name === DEFAULT_MIGRATION_TABLE
  );
}

/**
 * Kysely's Migrator records each migration itself after its `up` returns, outside any transaction
 * when transactions are disabled. recordMigration has already written that row, so Kysely's insert
 * becomes `on conflict do nothing`.
 */
export class RecordOnce implements KyselyPlugin {
  transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
    if (!isMigrationRecord(node)) return node;
    return { ...node, onConflict: { kind: 'OnConflictNode', doNothing: true } };
  }

  transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return Promise.resolve(result);
  }
}
