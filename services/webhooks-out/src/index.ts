export { claimRuns, gapFloor, releaseLeases } from './claims.js';
export type { ClaimOptions, RunClaim, SendableHook } from './claims.js';
export {
  DEFAULT_RETRY_SCHEDULE_MS,
  loadWebhooksOutConfig,
  loadWebhooksOutSettings,
  webhooksOutShape,
} from './config.js';
export type { WebhooksOutConfig, WebhooksOutSettings } from './config.js';
export {
  TEST_EVENT,
  hooksWithDueDeliveries,
  leaseMs,
  msInterval,
  recordAttempt,
  signingSecrets,
  storableResult,
} from './deliveries.js';
export type { RecordOptions, RecordedAttempt } from './deliveries.js';
export type { WebhooksOutDeps } from './deps.js';
export { createDrainScheduler } from './drains.js';
export type { DrainOutcome, DrainScheduler, DrainSchedulerOptions, HandedRun } from './drains.js';
export { drainHook, drainRun } from './jobs/drain-hook.js';
export { fanOut, fanOutJob } from './jobs/fan-out.js';
export type { FanOutDeps } from './jobs/fan-out.js';
export { sendOnce } from './jobs/send-once.js';
export { oweMessages } from './owe.js';
export type { FanOutResult, LeasedAtOwe, OweOptions } from './owe.js';
export { messageCreatedPayload } from './payload.js';
export type { MessageCreatedPayload, PayloadMessage } from './payload.js';
export { recordRuns } from './records.js';
export type { RunOutcome, RunSuccess } from './records.js';
export { createRunGroups } from './run-groups.js';
export type { RunGroups } from './run-groups.js';
export { RETRY_AFTER_CAP_MS, nextRetryDelayMs, parseRetryAfter } from './schedule.js';
export type { FailedTry } from './schedule.js';
export {
  SECRET_PREFIX,
  deliveryHeaders,
  secretKeyBytes,
  serviceSignature,
  standardSignature,
} from './signing.js';
export type { SigningSecrets } from './signing.js';
export { WEBHOOKS_OUT_QUEUES, startWebhooksOut, webhooksOutJobs } from './worker.js';
export type { RunningWebhooksOut, WebhooksOutJobs, WebhooksOutOptions } from './worker.js';
export { postAlertsHeld } from './jobs/alerts-held.js';
export { webhooksOutManifest } from './manifest.js';
export { createPacer } from './pacing.js';
export type { Pacer } from './pacing.js';
