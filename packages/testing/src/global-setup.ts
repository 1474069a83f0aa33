import { startSharedChromium } from './browser/chromium.js';
import { resolveStores } from './stores.js';
import { ensureTemplate } from './template.js';

/**
 * Vitest globalSetup: find the stores once, build the migrated template and start the suite's one
 * Chromium, and hand all three to workers via env. Returns the teardown that runs after the last
 * file.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const [stores, chromium] = await Promise.all([resolveStores(), startSharedChromium()]);
  const template = await ensureTemplate(stores.databaseUrl);
  process.env.FERRY_TEST_DATABASE_URL = stores.databaseUrl;
  process.env.FERRY_TEST_REDIS_URL = stores.redisUrl;
  process.env.FERRY_TEST_TEMPLATE = template;
  // Issue 46: every documented API answer is checked against its description, in every test.
  process.env.FERRY_API_CONFORMANCE = 'fail';
  return async () => {
    await Promise.all([chromium?.close(), stores.stop()]);
  };
}
