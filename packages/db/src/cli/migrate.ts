import { loadConfig } from '@ferry/core';
import { migrateToLatest } from '../migrate.js';

// `pnpm db:migrate`: migrates DATABASE_URL and exits.
const config = loadConfig();
const { applied } = await migrateToLatest(config.DATABASE_URL);
process.stderr.write(
  applied.length
    ? `Applied ${applied.length} migration(s): ${applied.join(', ')}\n`
    : 'Database is up to date.\n',
);
