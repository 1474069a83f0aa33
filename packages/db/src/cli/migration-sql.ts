import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import type { FerryMigration } from '../ferry-migration.js';
import { migrations as ferryMigrations } from '../migrations/index.js';
import { captureMigrationSql, migrationSqlFile } from '../migration-sql.js';

// `pnpm check:migrations` (infra/check-migrations.mjs) runs this: applies every migration to a
// scratch database on the server given and writes the SQL each one ran to <out>/<name>.sql.
//
//   tsx packages/db/src/cli/migration-sql.ts --server URL --out DIR [--migrations MODULE]
//
// MODULE (a test's list) exports `migrations` as migrations/index.ts does.
const { values } = parseArgs({
  options: {
    server: { type: 'string' },
    out: { type: 'string' },
    migrations: { type: 'string' },
  },
});
if (!values.server || !values.out) {
  process.stderr.write('usage: migration-sql.ts --server URL --out DIR [--migrations MODULE]\n');
  process.exit(2);
}
const list = values.migrations
  ? (
      (await import(pathToFileURL(path.resolve(values.migrations)).href)) as {
        migrations: Record<string, FerryMigration>;
      }
    ).migrations
  : ferryMigrations;
const captured = await captureMigrationSql(values.server, list).catch((error: unknown) => {
  // The message names the migration and Postgres's reason; a stack would only bury it.
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
await fs.mkdir(values.out, { recursive: true });
for (const migration of captured) {
  await fs.writeFile(path.join(values.out, `${migration.name}.sql`), migrationSqlFile(migration));
}
process.stdout.write(`${captured.length}\n`);
