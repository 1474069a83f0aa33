import cluster from 'node:cluster';
import { createLogger } from '@ferry/core';
import { configOrExit, onShutdown } from '@ferry/http';
import { runPrimary, runWorker } from './cluster.js';
import { loadFerryConfig } from './config.js';
import { startAll } from './server.js';

// `pnpm start`: the whole product on PORT (default 3000), in FERRY_PROCESSES processes (default:
// every core; see cluster.ts), or in this one process with FERRY_PROCESSES=1.
const settings = configOrExit(loadFerryConfig);
if (settings.processes > 1 && cluster.isPrimary) await runPrimary(settings);
else if (cluster.isWorker) await runWorker(settings);
else {
  const ferry = await startAll(settings);
  const logger = createLogger({ level: settings.base.LOG_LEVEL, name: 'ferry' });
  logger.info(`Ferry is up: ${settings.base.PUBLIC_URL}`);
  onShutdown(logger, () => ferry.stop());
}
