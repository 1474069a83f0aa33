import type { QueueName, ServiceJobs } from '@ferry/queues';
import { dispatchDeps, type DispatchDepsOptions } from '../deps.js';
import { advanceDispatchJob } from './advance-dispatch.js';

export const DISPATCH_QUEUES: readonly QueueName[] = ['dispatch'];

/**
 * Steps are recorded before the next starts and re-runs find earlier requests by their marker,
 * so a job held by a killed worker may be handed on quickly: its lock lapses after 10 s.
 */
const STALLED = { lockDuration: 10_000, stalledInterval: 5_000, maxStalledCount: 10 };

/** The hosted-agent flow's worker. */
export function dispatchJobs(options: DispatchDepsOptions): ServiceJobs {
  const deps = dispatchDeps(options);
  return {
    service: 'dispatch',
    consumes: DISPATCH_QUEUES,
    handlers: {
      dispatch: { handler: advanceDispatchJob(deps), options: { bull: STALLED } },
    },
    close: () => deps.close(),
  };
}
