export { createIngestApp, ingestDeps, ingestRouter } from './app.js';
export type { IngestParts } from './app.js';
export { ingestConfigShape, loadIngestConfig, loadIngestSettings } from './config.js';
export type { IngestConfig, IngestSettings } from './config.js';
export type { IngestDeps } from './deps.js';
export { MESSAGE_PREFIX, fingerprint } from './fingerprint.js';
export { parseJob, writeErrorBatch, writeErrors } from './jobs/write-errors.js';
export type { ParsedJob, WriteErrorsDeps, WriteResult } from './jobs/write-errors.js';
export {
  LIMITS,
  NESTING_MARKER,
  SOURCES,
  UNKNOWN_ERROR_CLASS,
  coerceReport,
  parseBatch,
  toSource,
} from './report.js';
export type { ParsedBatch, StoredReport } from './report.js';
export { PRUNE_FRACTION, pruneOccurrences, shouldPrune } from './retention.js';
export {
  ERROR_INGEST_BACKOFF,
  ERROR_WRITER_BATCH,
  ERROR_WRITER_CONCURRENCY,
  ERROR_WRITER_IN_FLIGHT,
  INGEST_QUEUES,
  TRIAGE_QUEUES,
  WRITER_QUEUES,
  cappedExponentialBackoff,
  errorWriterJobs,
  startErrorWriter,
  writeOrEachAlone,
} from './worker.js';
export type { BatchShape, ErrorWriterOptions, JobWritten, RetryBackoff } from './worker.js';
export { ingestManifest } from './manifest.js';
