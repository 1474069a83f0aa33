export {
  InvalidPayloadError,
  assertJobId,
  batchItems,
  describeIssues,
  idSchema,
  isQueueName,
  jobNameOf,
  mergeRelayBatches,
  queueCatalog,
  queueNames,
  safeParseJob,
} from './catalog.js';
export type {
  AddOptions,
  BulkJob,
  JobInput,
  JobPayload,
  MessageFanOut,
  ParseResult,
  QueueDefinition,
  QueueName,
} from './catalog.js';
export { scriptCommand } from './connection.js';
// The connection factory lives in @ferry/core (packages that do not use queues need it too);
// named here as well so queue code keeps one import.
export { createRedisConnection, redisReady } from '@ferry/core';
export type { ScriptCommand } from './connection.js';
export type { RedisConnectionOptions, RedisRole } from '@ferry/core';
export {
  eventCatalog,
  eventTypes,
  isEventType,
  jobsForEvent,
  parseEvent,
  routedQueues,
  sentToRoomHooks,
} from './events.js';
export type { EventDefinition, EventInput, EventPayload, EventType } from './events.js';
export {
  createOutboxRelay,
  outboxRows,
  startOutboxRelay,
  writeEvent,
  writeEvents,
} from './outbox.js';
export type { OutboxEvent, OutboxRelay, OutboxRelayOptions, RelayedEvent } from './outbox.js';
export { createProducer } from './producer.js';
export type { Producer, ProducerOptions } from './producer.js';
export {
  checkHandlers,
  closeWorkers,
  closeWorkersOnSignal,
  createWorker,
  registerWorkers,
} from './worker.js';
export type {
  CloseOnSignalOptions,
  HandlerMap,
  HandlerOptions,
  JobHandler,
  JobRegistration,
  RegisterWorkersOptions,
  WorkerOptions,
} from './worker.js';
export { OUTBOX_CHANNEL, runOutboxRelay } from './relay-process.js';
export { QUICK_STALL_HANDOFF, startJobs } from './jobs.js';
export type { RunningJobs, ServiceJobs, StartJobsOptions } from './jobs.js';
export {
  allQueueHealth,
  failedJobs,
  findFailedJob,
  queueHealth,
  retryFailedJob,
} from './health.js';
export type { FailedJob, QueueHealth, RetryOutcome } from './health.js';
export { DEFAULT_LEASE_TTL_MS, runWithLease } from './lease.js';
export type { LeaseHolder, LeaseOptions, Leased } from './lease.js';
