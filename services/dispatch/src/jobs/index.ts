import { QUICK_STALL_HANDOFF, type QueueName, type ServiceJobs } from '@ferry/queues';
import { dispatchDeps, type DispatchDepsOptions } from '../deps.js';
import { advanceDispatchJob } from './advance-dispatch.js';

export const DISPATCH_QUEUES: readonly QueueName[] = ['dispatch'];

/** The hosted-agent flow's worker. */
export function dispatchJobs(options: DispatchDepsOptions): ServiceJobs {
  const deps = dispatchDeps(options);
  return {
    service: 'dispatch',
    consumes: DISPATCH_QUEUES,
    handlers: {
      // Steps are recorded before the next starts and a re-run finds earlier requests by their
      // marker, so a killed worker's job may move on fast.
      dispatch: { handler: advanceDispatchJob(deps), options: { bull: QUICK_STALL_HANDOFF } },
    },
    close: () => deps.close(),
  };
}
