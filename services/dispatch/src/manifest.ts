import type { ServiceContext, ServiceManifest } from '@ferry/http';
import { dispatchRouter } from './app.js';
import type { DispatchSettings } from './config.js';
import { dispatchDeps } from './deps.js';
import { dispatchJobs } from './jobs/index.js';

/**
 * The dispatch service for runServices: GET /api/v1/repos and POST /api/v1/feedback/:id/dispatch
 * (mount it before web's /api/v1) and the hosted-agent flow's worker (not for DISPATCH_ROLE http).
 */
export function dispatchManifest(
  ctx: ServiceContext,
  settings: DispatchSettings,
  role: DispatchSettings['role'] = settings.role,
): ServiceManifest {
  const options = {
    config: ctx.config,
    settings,
    db: ctx.runtime.db,
    logger: ctx.runtime.logger,
    producerConnection: ctx.producerRedis,
  };
  const deps = dispatchDeps(options);
  const { path, router } = dispatchRouter(deps);
  return {
    name: 'dispatch',
    mounts: [{ path, router }],
    ...(role === 'http' ? {} : { jobs: dispatchJobs(options) }),
    close: { resources: () => deps.close() },
  };
}
