import type { BrowserServer } from 'playwright-core';
import type { StoreUrls } from './stores.js';

export default async function globalTeardown(): Promise<void> {
  const state = globalThis as { __ferryStores?: StoreUrls; __ferryChromium?: BrowserServer };
  await Promise.all([state.__ferryChromium?.close(), state.__ferryStores?.stop()]);
}
