import type { ServiceContext, ServiceManifest } from '@ferry/http';
import { startRelay } from '@ferry/workspace';
import { opsGauges, startOpsSampling, webMounts } from './app.js';
import type { WebSettings } from './config.js';
import { webDeps } from './deps.js';
import { renderErrorPage } from './shared/error-page.js';

/**
 * The web service for runServices: /widget/* (public, cross-origin, before the pages), /api/v1
 * (tokens; mount dispatch's before it), the pages (sessions) with socket.io attached, the HTML
 * error page, the Ops page's gauges on /metrics, and the Ops sampler once per deployment. With
 * `relay` (its own entry, unless WEB_RELAY=false because the `relay` service runs) it relays the
 * outbox too; `pnpm start` has the relay service's manifest for that.
 */
export function webManifest(
  ctx: ServiceContext,
  settings: WebSettings,
  { relay = false }: { relay?: boolean } = {},
): ServiceManifest {
  const { runtime } = ctx;
  const deps = webDeps(runtime, settings);
  opsGauges(deps, ctx.metrics);
  const { mounts, realtime } = webMounts(deps);
  return {
    name: 'web',
    mounts,
    realtime,
    renderErrorHtml: renderErrorPage,
    // Safe to scale: the relay claims rows with SKIP LOCKED, and announces every stored message
    // to the pages that show it, whichever process holds their sockets.
    ...(relay ? { background: [{ name: 'outbox-relay', start: () => startRelay(runtime) }] } : {}),
    oncePerDeployment: [{ name: 'ops-sampler', start: () => startOpsSampling(deps) }],
    close: { resources: () => deps.close() },
  };
}
