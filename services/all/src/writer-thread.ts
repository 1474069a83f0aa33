import { parentPort } from 'node:worker_threads';
import { ingestManifest, WRITER_QUEUES } from '@ferry/ingest-errors';
import { openRuntime, runServices } from '@ferry/http';
import { loadFerryConfig } from './config.js';
import { WRITER_READY, WRITER_STOP, WRITER_STOPPED } from './writer-messages.js';

/**
 * The error writer of `pnpm start`, on a thread of its own (writer.ts starts it): the
 * `error-ingest` workers, with their own Postgres pool and Redis connections, as INGEST_ROLE=worker
 * runs them in a split deployment. The thread's environment is a copy of the process's, so the
 * config is the one the process parsed (already checked there: a bad one never gets this far).
 */
const port = parentPort;
if (!port) throw new Error('writer-thread.ts runs as a worker thread (writer.ts starts it)');

const settings = loadFerryConfig();
// Named apart from the process's own: its Redis connections read `ferry-writer-worker` in CLIENT
// LIST, and its log lines and metrics say which thread wrote them.
const runtime = openRuntime(settings.base, 'ferry-writer', { warn: false });
const running = await runServices(
  runtime,
  // Its process checked DATABASE_DIRECT_URL before starting it (server.ts).
  { name: 'ferry-writer', listen: false, quietStart: true, sessionChecked: true },
  (ctx) => [ingestManifest(ctx, settings.ingest, 'worker', WRITER_QUEUES)],
);

port.on('message', (message: unknown) => {
  if (message !== WRITER_STOP) return;
  // Active jobs finish their batch first (BullMQ's close); what is still waiting stays in Redis.
  void running.stop().then(
    () => port.postMessage(WRITER_STOPPED),
    (error: unknown) => {
      runtime.logger.error({ err: error }, 'the error writer did not stop cleanly');
      port.postMessage(WRITER_STOPPED);
    },
  );
});
port.postMessage(WRITER_READY);

// Test-only (NODE_ENV=test), like the writer's own crash points (ingest-errors write-errors.ts):
// FERRY_WRITER_THREAD_FAIL=after-up throws in the thread once it is up, for the test of what its
// process does then (writer.ts: it ends too, rather than accept reports nothing writes).
if (process.env.NODE_ENV === 'test' && process.env.FERRY_WRITER_THREAD_FAIL === 'after-up') {
  setImmediate(() => {
    throw new Error('the error writer thread failed on purpose (FERRY_WRITER_THREAD_FAIL)');
  });
}
