import { createTestContext, type TestContext, freePort } from '@ferry/testing';
import { loadFerryConfig } from '../../src/config.js';
import { startAll, type RunningFerry } from '../../src/server.js';

export interface FerryHarness {
  ctx: TestContext;
  ferry: RunningFerry;
  /** PUBLIC_URL: the address the app itself shows in links and curl examples. */
  url: string;
  close(): Promise<void>;
}

/**
 * `pnpm start` as a newcomer runs it (services/all startAll: every router, every worker, the
 * relay) over an isolated database and Redis prefix.
 */
export async function startFerry(env: Record<string, string> = {}): Promise<FerryHarness> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const ctx = await createTestContext({ PORT: String(port), PUBLIC_URL: url, ...env });
  const ferry = await startAll(loadFerryConfig(ctx.env));
  return {
    ctx,
    ferry,
    url,
    close: async () => {
      await ferry.stop();
      await ctx.close();
    },
  };
}
