import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Role } from '@ferry/db';
import {
  FormClient,
  createMember,
  createTestContext,
  createWorkspace,
  startApp,
  type RunningApp,
  type TestContext,
} from '@ferry/testing';
import { startRelay } from '@ferry/workspace';
import { createWebApp } from '../src/app.js';
import { loadWebSettings } from '../src/config.js';
import { webDeps, type WebResources } from '../src/deps.js';

export { FormClient };

export interface WebHarness {
  ctx: TestContext;
  deps: WebResources;
  app: RunningApp;
  url: string;
  close(): Promise<void>;
}

/**
 * The web service on a random port over an isolated database and Redis prefix, with the outbox
 * relay running as in `pnpm start` (it announces stored messages to open pages). `env` is the
 * process environment the app's settings are parsed from (e.g. ALLOW_PRIVATE_WEBHOOK_TARGETS).
 */
export async function startWeb(
  env: Record<string, string> = {},
  options: { ownPublicUrl?: boolean } = {},
): Promise<WebHarness> {
  // PUBLIC_URL as the app's own address (GitHub redirects to it): the port is taken first.
  const own = options.ownPublicUrl ? await listening() : undefined;
  const ctx = await createTestContext(own ? { ...env, PUBLIC_URL: own.url } : env);
  const deps = webDeps(ctx, loadWebSettings(ctx.env));
  const web = createWebApp(deps);
  const app = own
    ? own.serve(web.app, (server) => web.realtime.attach(server))
    : await startApp(web.app, (server) => web.realtime.attach(server));
  const relay = startRelay(ctx);
  return {
    ctx,
    deps,
    app,
    url: app.url,
    close: async () => {
      await relay.stop();
      await web.realtime.close();
      await app.close();
      await deps.close();
      await ctx.close();
    },
  };
}

/** A loopback server listening before its handler exists, so its URL can go into the config. */
async function listening() {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    serve(handler: http.RequestListener, attach: (server: http.Server) => void): RunningApp {
      server.on('request', handler);
      attach(server);
      return {
        url,
        server,
        close: async () => {
          server.closeAllConnections();
          await new Promise<void>((resolve) => server.close(() => resolve()));
        },
      };
    },
  };
}

/**
 * A new workspace with one seat of `role`, signed in: the start of most page tests. `base` is the
 * workspace's path prefix (`/w/<id>/<slug>`).
 */
export async function signedInSeat(web: WebHarness, role: Role) {
  const workspace = await createWorkspace(web.ctx.db);
  const seat = await createMember(web.ctx.db, workspace, { role });
  const client = new FormClient(web.url);
  await client.signIn(seat.user.email, seat.user.password);
  return { workspace, seat, client, base: `/w/${workspace.id}/${workspace.slug}` };
}
