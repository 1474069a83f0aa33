import cluster from 'node:cluster';
import { createLogger, prettyLines } from '@ferry/core';
import { configOrExit, onShutdown } from '@ferry/http';
import { announceUp } from './banner.js';
import { runPrimary, runWorker } from './cluster.js';
import { loadFerryConfig } from './config.js';
import { startAll } from './server.js';

// `pnpm start`: the whole product on PORT (default 3000), in FERRY_PROCESSES processes (default:
// every core; see cluster.ts), or in this one process with FERRY_PROCESSES=1.
const settings = configOrExit(loadFerryConfig);
if (settings.processes > 1 && cluster.isPrimary) await runPrimary(settings);
else if (cluster.isWorker) await runWorker(settings);
else {
  const pretty = prettyLines(settings.base.LOG_FORMAT);
  const ferry = await startAll(settings, { quietStart: pretty });
  const logger = createLogger({ level: settings.base.LOG_LEVEL, name: 'ferry', pretty });
  announceUp(logger, { settings, pids: [process.pid], applied: ferry.applied, pretty });
  onShutdown(logger, () => ferry.stop());
}
