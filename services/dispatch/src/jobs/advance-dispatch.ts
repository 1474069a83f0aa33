import type { JobHandler } from '@ferry/queues';
import type { DispatchDeps } from '../deps.js';
import { advanceDispatch } from '../flow.js';

/** The `dispatch` queue's one handler: the next step (or poll) of one dispatch's flow. */
export function advanceDispatchJob(deps: DispatchDeps): JobHandler<'dispatch'> {
  return (payload) => advanceDispatch(deps, payload);
}
