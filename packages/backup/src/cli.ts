import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, redisMasterUrl } from '@ferry/core';
import { takeBackup } from './backup.js';
import { RestoreRefused, restoreBackup } from './restore.js';

// `npm run backup -- [--out DIR]` and `npm run restore -- DIR [--force]` (README "Backups"):
// DATABASE_DIRECT_URL (else DATABASE_URL), REDIS_URL and REDIS_PREFIX as the services read them.
// Progress goes to stderr; stdout carries only the backup's directory (backup) so a script can
// take it.
const USAGE = `usage: npm run backup -- [--out DIR]        (default DIR: backups)
       npm run restore -- BACKUP_DIR [--force]`;

const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      allowPositionals: true,
      options: { out: { type: 'string', default: 'backups' }, force: { type: 'boolean' } },
    });
  } catch (error) {
    log(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  let config;
  try {
    const settings = loadConfig();
    // pg_dump and pg_restore set session settings before their transactions, and a restore drops
    // and creates the database: Postgres itself, never a transaction pooler (PgBouncer).
    config = { ...settings, DATABASE_URL: settings.DATABASE_DIRECT_URL };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    log(error.message);
    return 2;
  }
  // redis-cli --rdb and the key restore talk to one server: with Sentinels, the master now.
  config = { ...config, REDIS_URL: await redisMasterUrl(config.redis) };
  if (command === 'backup' && positionals.length === 0 && !values.force) {
    const { dir } = await takeBackup(config, { outDir: values.out, log });
    process.stdout.write(`${dir}\n`);
    return 0;
  }
  if (command === 'restore' && positionals.length === 1) {
    try {
      await restoreBackup(config, positionals[0]!, { force: values.force ?? false, log });
    } catch (error) {
      if (!(error instanceof RestoreRefused)) throw error;
      log(`Refused: ${error.message}`);
      return 3;
    }
    log('Restored. Start Ferry: it applies any migration this code has beyond the backup.');
    return 0;
  }
  log(USAGE);
  return 2;
}

process.exitCode = await main(process.argv.slice(2)).catch((error: unknown) => {
  log(`Failed: ${error instanceof Error ? error.message : String(error)}`);
  return 1;
});
