import { createLogger } from '@ferry/core';
import { configOrExit, onShutdown } from '@ferry/http';
import { loadFerryConfig } from './config.js';
import { startAll } from './server.js';

// `pnpm start`: the whole product in one process on PORT (default 3000).
const settings = configOrExit(loadFerryConfig);
const ferry = await startAll(settings);
const logger = createLogger({ level: settings.base.LOG_LEVEL, name: 'ferry' });
logger.info(`Ferry is up: ${settings.base.PUBLIC_URL}`);
onShutdown(logger, () => ferry.stop());
