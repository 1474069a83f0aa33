import { loadConfig } from '@ferry/core';
import { migrateToLatest } from '../migrate.js';

// `pnpm db:migrate`: migrates DATABASE_DIRECT_URL (else DATABASE_URL) and exits: DDL and the
// migrator's lock want Postgres itself, not a transaction pooler.
const config = loadConfig();
const { applied } = await migrateToLatest(config.DATABASE_DIRECT_URL);
process.stderr.write(
  applied.length
    ? `Applied ${applied.length} migration(s): ${applied.join(', ')}\n`
    : 'Database is up to date.\n',
);
