import type { ServiceContext, ServiceManifest } from '@ferry/http';
import { startRelay } from '@ferry/workspace';

/**
 * The outbox relay for runServices: hands committed outbox events to their queues and announces
 * stored messages to every web process. Per process, not once per deployment: any number may run
 * (rows are claimed with SKIP LOCKED, jobs are added with the event id as jobId), so every
 * process of `pnpm start` relays what it and the others commit without a lease to wait on.
 */
export function relayManifest(ctx: ServiceContext): ServiceManifest {
  return {
    name: 'relay',
    background: [{ name: 'outbox-relay', start: () => startRelay(ctx.runtime) }],
  };
}
