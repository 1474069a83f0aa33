import { createLogger, loadConfig } from '@ferry/core';
import { createDb } from '@ferry/db';
import { runOutboxRelay } from '@ferry/queues';

/**
 * The outbox relay in its own process, as services/web/src/main.ts runs it (runOutboxRelay, its
 * defaults), config from env. Prints "ready" once started; SIGTERM stops it cleanly.
 */
const config = loadConfig(process.env);
const logger = createLogger({ level: config.LOG_LEVEL, name: 'bench-relay' });
const db = createDb(config.DATABASE_URL);
const relay = runOutboxRelay({ db, config, logger });
process.stdout.write('ready\n');
process.once('SIGTERM', () => {
  void (async () => {
    await relay.stop();
    await db.destroy();
    process.exit(0);
  })();
});
