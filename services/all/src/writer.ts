import { Worker } from 'node:worker_threads';
import type { Logger } from '@ferry/core';
import { WRITER_READY, WRITER_STOP, WRITER_STOPPED } from './writer-messages.js';

export interface WriterThread {
  /** Finishes the active batches, closes the thread's connections, ends the thread. */
  stop(): Promise<void>;
}

/**
 * The thread's module: the bundle beside this one (infra/build.mjs builds
 * `.build/services/all/src/writer-thread.mjs` next to `main.mjs`). Where this module runs is read
 * through `import.meta` whole, because the build rewrites the text `import.meta.url` to the
 * source file's URL. Ferry's entries run bundled (`npm start`, the image, the children tests
 * start); a process running the TypeScript sources has no thread module to load, and says so.
 */
const { url: loadedFrom } = import.meta;

function threadModule(): URL {
  const own = new URL(loadedFrom);
  if (own.pathname.endsWith('.ts')) {
    throw new Error(
      'the error writer thread runs from the bundle: build it (node infra/build.mjs) and start ' +
        '.build/services/all/src/main.mjs, as npm start does',
    );
  }
  return new URL('./writer-thread.mjs', own);
}

/**
 * Issue 48: `pnpm start`'s error writer runs on a thread of its own. On the event loop that
 * answers POST /ingest/errors, each batch of 600-1,000 reports held it for 15-60 ms at a time
 * (mapping, the INSERT's parameters, BullMQ's completions), and at 6,000 reports/s the accept
 * path's p99 was that queue (bench/RESULTS.md). A thread has its own event loop and heap; the
 * writer reaches the process only through Redis and Postgres, as a split deployment's
 * INGEST_ROLE=worker does.
 *
 * Resolves once the thread's workers are registered; rejects if the thread ends before that (its
 * error, or its exit code). After that, a thread that ends unasked (an error it did not catch)
 * ends the process: reports would be accepted that nothing writes. A cluster worker that ends is
 * replaced by its primary; a lone process is restarted by whatever runs it.
 */
export function startWriterThread(logger: Logger): Promise<WriterThread> {
  const thread = new Worker(threadModule());
  let state: 'starting' | 'running' | 'stopping' = 'starting';
  let failure: Error | undefined;
  const stopped = new Promise<void>((resolve) => {
    thread.on('message', (message: unknown) => {
      if (message === WRITER_STOPPED) resolve();
    });
    thread.on('exit', () => resolve());
  });
  return new Promise<WriterThread>((resolve, reject) => {
    thread.on('error', (error) => {
      failure = error;
      if (state === 'running') logger.fatal({ err: error }, 'the error writer thread failed');
    });
    thread.on('exit', (code) => {
      if (state === 'starting') {
        reject(
          failure ?? new Error(`the error writer thread ended before it was up (code ${code})`),
        );
      } else if (state === 'running') {
        logger.fatal({ code }, 'the error writer thread ended unasked; stopping the process');
        process.exit(1);
      }
    });
    thread.on('message', (message: unknown) => {
      if (message !== WRITER_READY) return;
      state = 'running';
      resolve({
        stop: async () => {
          state = 'stopping';
          thread.postMessage(WRITER_STOP);
          await stopped;
          await thread.terminate();
        },
      });
    });
  });
}
