import type { StoreUrls } from './stores.js';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __ferryStores?: StoreUrls }).__ferryStores?.stop();
}
