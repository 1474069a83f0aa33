import { resolveStores } from './stores.js';
import { ensureTemplate } from './template.js';

/** Jest globalSetup: find the stores once, build the migrated template, hand both to workers via env. */
export default async function globalSetup(): Promise<void> {
  const stores = await resolveStores();
  const template = await ensureTemplate(stores.databaseUrl);
  process.env.FERRY_TEST_DATABASE_URL = stores.databaseUrl;
  process.env.FERRY_TEST_REDIS_URL = stores.redisUrl;
  process.env.FERRY_TEST_TEMPLATE = template;
  (globalThis as { __ferryStores?: typeof stores }).__ferryStores = stores;
}
