import { loadConfig } from '@ferry/core';
import { configOrExit, onShutdown } from '@ferry/http';
import { createLogger } from '@ferry/core';
import { startAll } from './server.js';

// `pnpm start`: the whole product in one process on PORT (default 3000).
const config = configOrExit(loadConfig);
const ferry = await startAll(config);
const logger = createLogger({ level: config.LOG_LEVEL, name: 'ferry' });
logger.info(`Ferry is up: ${config.PUBLIC_URL}`);
onShutdown(logger, () => ferry.stop());
