export {
  OPS_MINUTES,
  agentsOnlineNow,
  deliveriesPerMinute,
  deploymentHealth,
  ingestPerMinute,
  lastHourMinutes,
  minuteOf,
  outboxLagMs,
  slowestHooks,
} from './ops-figures.js';
export type { DeliverySeries, DeploymentHealth, IngestSeries, SlowHook } from './ops-figures.js';
export {
  agentsOnlineHistory,
  deploymentHistory,
  sampleOpsMinute,
  startOpsSampler,
} from './ops-history.js';
export type { DeploymentHistory, OpsSampler, OpsSamplerDeps, QueueHistory } from './ops-history.js';
export { retryWorkspaceJob, workspaceFailedJobs } from './ops-jobs.js';
export type { WorkspaceFailedJob, WorkspaceRetryOutcome } from './ops-jobs.js';
