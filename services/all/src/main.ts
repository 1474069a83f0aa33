import cluster from 'node:cluster';
import { ConfigError, createLogger, prettyLines } from '@ferry/core';
import { configOrExit, exitOnConfigError, onShutdown } from '@ferry/http';
import { announceUp } from './banner.js';
import { runPrimary, runWorker } from './cluster.js';
import { loadFerryConfig } from './config.js';
import { startAll } from './server.js';

// `pnpm start`: the whole product on PORT (default 3000), in FERRY_PROCESSES processes (default:
// every core, less one beside a local Postgres: config.ts; see cluster.ts), or in this one
// process with FERRY_PROCESSES=1. Each process writes error reports on a thread of its own
// (writer.ts), off the event loop that answers requests.
const settings = configOrExit(loadFerryConfig);
if (settings.processes > 1 && cluster.isPrimary) await runPrimary(settings);
else if (cluster.isWorker) await runWorker(settings);
else {
  const pretty = prettyLines(settings.base.LOG_FORMAT);
  // A setting found wrong only at start (DATABASE_DIRECT_URL through a pooler) reads as the
  // config errors do: its message, no stack.
  const ferry = await startAll(settings, { quietStart: pretty, writerThread: true }).catch(
    (error: unknown) => {
      if (error instanceof ConfigError) exitOnConfigError(error);
      throw error;
    },
  );
  const logger = createLogger({ level: settings.base.LOG_LEVEL, name: 'ferry', pretty });
  announceUp(logger, { settings, pids: [process.pid], applied: ferry.applied, pretty });
  onShutdown(logger, () => ferry.stop());
}
