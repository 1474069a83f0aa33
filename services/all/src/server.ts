import type http from 'node:http';
import { agentGatewayManifest } from '@ferry/agent-gateway';
import { migrateToLatest } from '@ferry/db';
import { dispatchManifest } from '@ferry/dispatch';
import { openRuntime, runServices } from '@ferry/http';
import { ingestManifest, INGEST_QUEUES, TRIAGE_QUEUES } from '@ferry/ingest-errors';
import type { LeaseHolder } from '@ferry/queues';
import { relayManifest } from '@ferry/relay';
import { webManifest } from '@ferry/web';
import { webhooksInManifest } from '@ferry/webhooks-in';
import { webhooksOutManifest } from '@ferry/webhooks-out';
import type { FerryConfig } from './config.js';
import { startWriterThread, type WriterThread } from './writer.js';

export interface RunningFerry {
  server: http.Server;
  /** The migrations this start applied. */
  applied: readonly string[];
  /** The once-per-deployment duties' leases (the Ops sampler), by name. */
  leases: ReadonlyMap<string, LeaseHolder>;
  stop(): Promise<void>;
}

export interface StartAllOptions {
  /**
   * Apply pending migrations first (the default). A cluster worker does not: its primary
   * migrated once before forking.
   */
  migrate?: boolean;
  /** Log the config's warnings (the default). A cluster worker does not: its primary did. */
  warn?: boolean;
  /**
   * A person reads the lines at a terminal and the caller prints the start-up banner:
   * `listening`, where the duties run and the migrations applied are left to it (see
   * runServices' quietStart).
   */
  quietStart?: boolean;
  /**
   * The error writer on a thread of its own (writer.ts), as `pnpm start` runs it. Off by default:
   * the thread loads the bundle's module, and tests that call startAll run the TypeScript sources.
   */
  writerThread?: boolean;
}

/**
 * Every service in one process, for a laptop: pending migrations first, then every service's
 * manifest in one runServices. The order below is the mount order: the hot routes (ingest,
 * incoming webhooks) before the request log, then /agents/v1, then dispatch's two /api/v1 routes
 * (GET /repos, POST /feedback/:id/dispatch) before web's /api/v1 and its catch-all pages. Every
 * service's jobs start under one check (each consumed queue has exactly one handler, and every
 * queue the outbox relays to is consumed here). Each process runs the relay; the Ops sampler
 * runs in whichever process holds its lease.
 */
export async function startAll(
  settings: FerryConfig,
  options: StartAllOptions = {},
): Promise<RunningFerry> {
  const config = settings.base;
  const applied =
    options.migrate === false ? [] : (await migrateToLatest(config.DATABASE_DIRECT_URL)).applied;
  const runtime = openRuntime(config, 'ferry', { warn: options.warn ?? true });
  if (applied.length && !options.quietStart) {
    runtime.logger.info({ applied }, 'migrations applied');
  }
  const running = await runServices(
    runtime,
    { name: 'ferry', requireRoutedQueues: true, quietStart: options.quietStart ?? false },
    (ctx) => [
      ingestManifest(
        ctx,
        settings.ingest,
        'all',
        // With the writer on its thread: the light queues only (bulk triage, hand-offs).
        options.writerThread ? TRIAGE_QUEUES : INGEST_QUEUES,
      ),
      webhooksInManifest(ctx, settings.webhooksIn),
      agentGatewayManifest(ctx, settings.agentGateway),
      dispatchManifest(ctx, settings.dispatch, 'all'),
      webManifest(ctx, settings.web),
      webhooksOutManifest(ctx, settings.webhooksOut),
      relayManifest(ctx),
    ],
  );
  // After the process's own start, whose checks (a pooler in DATABASE_URL's place) say what is
  // wrong first. Reports accepted before the thread is up wait in Redis for it.
  let writer: WriterThread | undefined;
  if (options.writerThread) {
    try {
      writer = await startWriterThread(runtime.logger);
    } catch (error) {
      await running.stop();
      throw error;
    }
  }
  return {
    server: running.server!,
    applied,
    leases: running.leases,
    // HTTP first (every 202 it gave is in Redis), then the writer finishes its active batches.
    stop: async () => {
      try {
        await running.stop();
      } finally {
        await writer?.stop();
      }
    },
  };
}
