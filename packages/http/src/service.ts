import http from 'node:http';
import type { Request, Response } from 'express';
import type { Redis } from 'ioredis';
import { warningsOnly, type AppError, type Config } from '@ferry/core';
import {
  createRedisConnection,
  redisReady,
  runWithLease,
  startJobs,
  type LeaseHolder,
  type Leased,
  type RunningJobs,
  type ServiceJobs,
} from '@ferry/queues';
import { serverTimeouts } from './body-deadline.js';
import { createMetrics, type Metrics } from './metrics.js';
import { closeServer, listen, type Runtime } from './runtime.js';
import { requireSessionDatabase } from './session-database.js';
import { createServiceApp, type ServiceMount } from './service-app.js';
import { serverClassesFor } from './app.js';

/**
 * A service's manifest: everything its process runs, as data, so its own entry (services/X/src/
 * main.ts) and `pnpm start` (services/all, every manifest in one process) start and stop it the
 * same way through `runServices`. The order of a manifest list is the mount order.
 */
export interface ServiceManifest {
  /** For logs. */
  name: string;
  /**
   * HTTP routes, mounted in this order. `hot` ones answer at high rates to machines (error
   * reports, incoming webhooks): mounted before the request log, compression, the health routes
   * and every other service's middleware (see createHttpApp's hotRoutes).
   */
  mounts?: readonly ServiceMount[];
  /** Queue consumers (the service's *Jobs() factory): safe in every process of a deployment. */
  jobs?: ServiceJobs;
  /**
   * Loops every process may run at once (the outbox relay claims rows with SKIP LOCKED): started
   * once the server listens, stopped after the jobs so what they stored is still relayed.
   */
  background?: readonly Duty[];
  /**
   * Work that must run in one process of the deployment (the Ops sampler): each runs under a
   * Redis lease (packages/queues runWithLease), in whichever process holds it. Stopped first.
   */
  oncePerDeployment?: readonly Duty[];
  /** Attached to the HTTP server (socket.io); closed while the server drains. */
  realtime?: { attach(server: http.Server): void; close(): Promise<void> };
  /** The HTML error page for browsers (web); JSON errors otherwise. */
  renderErrorHtml?: (req: Request, res: Response, error: AppError) => void;
  /** Close steps, each run at its stage of the shutdown (see runServices' stop). */
  close?: {
    /** While the server stops accepting: end long-lived responses (SSE streams) it waits for. */
    streams?: () => Promise<void>;
    /** Once every request has its answer: write what requests left queued (group commits). */
    requests?: () => Promise<void>;
    /** After jobs and background loops stopped: producers, pools, caches. */
    resources?: () => Promise<void>;
  };
}

export interface Duty {
  name: string;
  start(): Leased;
}

/** What a manifest is built from: the process's config, connections and metrics registry. */
export interface ServiceContext {
  config: Config;
  runtime: Runtime;
  /**
   * Fail-fast connection for requests and enqueues (createRedisConnection role `producer`),
   * opened on first use; runServices waits for it before listening and closes it last.
   */
  readonly producerRedis: Redis;
  metrics: Metrics;
}

export interface RunServicesOptions {
  /** The process's name: metrics label and Redis connection names (`ferry`, `web`, ...). */
  name: string;
  /** False for a process without HTTP (the relay, INGEST_ROLE=worker). */
  listen?: boolean;
  /** `pnpm start`: every queue an outbox event is relayed to must be consumed here. */
  requireRoutedQueues?: boolean;
  /**
   * The process this runs in has checked DATABASE_DIRECT_URL already (`pnpm start`'s error writer
   * thread, started once its process is up): a second probe would only race the first's verdict.
   */
  sessionChecked?: boolean;
  /** How long a once-per-deployment lease lasts without renewal (tests shorten it). */
  leaseTtlMs?: number;
  /**
   * A person reads this process's lines at a terminal and its caller prints one banner for the
   * start (`pnpm start`): `listening` and where each once-per-deployment duty runs are logged
   * only at debug level (warnings and errors as always).
   */
  quietStart?: boolean;
}

export interface RunningServices {
  /** Undefined when `listen` is false. */
  server: http.Server | undefined;
  /** The once-per-deployment duties' leases, by duty name. */
  leases: ReadonlyMap<string, LeaseHolder>;
  stop(): Promise<void>;
}

/**
 * Starts the manifests `build` returns in this process: one app (hot mounts, health, the rest in
 * order, 404 and error handlers), every service's jobs under one startup check, the realtime
 * attach, the background loops and, under their leases, the once-per-deployment duties.
 */
export async function runServices(
  runtime: Runtime,
  options: RunServicesOptions,
  build: (ctx: ServiceContext) => ServiceManifest[],
): Promise<RunningServices> {
  const { config, logger } = runtime;
  const serve = options.listen ?? true;
  // What a start says at info, when its caller says it once for every process instead.
  const chatter = options.quietStart ? warningsOnly(logger) : logger;
  // Before any manifest opens its listeners: a pooler in their way stops the start, loudly.
  if (!options.sessionChecked) {
    try {
      await requireSessionDatabase(config, logger);
    } catch (error) {
      logger.fatal({ err: error }, 'not starting');
      throw error;
    }
  }
  // Separate connections per role (see createRedisConnection): requests fail fast while Redis is
  // down, the workers wait it out.
  // Opened by the first manifest that asks (web and the relay never do).
  let producerRedis: Redis | undefined;
  const metrics = createMetrics(options.name);
  const manifests = build({
    config,
    runtime,
    metrics,
    get producerRedis() {
      producerRedis ??= createRedisConnection(config.redis, {
        role: 'producer',
        logger,
        name: `${options.name}-producer`,
      });
      return producerRedis;
    },
  });

  const serviceJobs = manifests.flatMap((m) => (m.jobs ? [m.jobs] : []));
  let workerRedis: Redis | undefined;
  let jobs: RunningJobs | undefined;
  if (serviceJobs.length) {
    workerRedis = createRedisConnection(config.redis, {
      role: 'worker',
      logger,
      name: `${options.name}-worker`,
    });
    jobs = startJobs(serviceJobs, {
      connection: workerRedis,
      prefix: config.REDIS_PREFIX,
      logger,
      requireRoutedQueues: options.requireRoutedQueues ?? false,
    });
  }

  let server: http.Server | undefined;
  if (serve) {
    const renderHtml = manifests.find((m) => m.renderErrorHtml)?.renderErrorHtml;
    const app = createServiceApp({
      config,
      logger,
      metrics,
      db: runtime.db,
      redis: runtime.redis,
      mounts: manifests.flatMap((m) => m.mounts ?? []),
      ...(renderHtml ? { renderHtml } : {}),
    });
    // Fail-fast producers refuse commands until connected: be ready before taking requests.
    if (producerRedis) await redisReady(producerRedis);
    server = http.createServer({ ...serverTimeouts(config), ...serverClassesFor(app) }, app);
    for (const m of manifests) m.realtime?.attach(server);
    await listen(server, config.PORT, chatter);
  }

  const background = manifests.flatMap((m) => m.background ?? []).map((duty) => duty.start());
  const leases = new Map<string, LeaseHolder>();
  for (const duty of manifests.flatMap((m) => m.oncePerDeployment ?? [])) {
    leases.set(
      duty.name,
      runWithLease({
        redis: runtime.redis,
        key: `${config.REDIS_PREFIX}:lease:${duty.name}`,
        name: duty.name,
        logger: chatter,
        start: () => duty.start(),
        ...(options.leaseTtlMs ? { ttlMs: options.leaseTtlMs } : {}),
      }),
    );
  }

  const closeStage = async (stage: 'streams' | 'requests' | 'resources'): Promise<void> => {
    for (const m of manifests) await m.close?.[stage]?.();
  };
  return {
    server,
    leases,
    stop: async () => {
      for (const lease of leases.values()) await lease.stop();
      // Stop accepting; end the agents' SSE streams and the pages' sockets (they reconnect to
      // another process); requests in flight get their real answers before anything they need
      // closes.
      const closed = server ? closeServer(server) : Promise.resolve();
      await closeStage('streams');
      for (const m of manifests) await m.realtime?.close();
      await closed;
      // Posts already queued for a group commit are written before the pool closes.
      await closeStage('requests');
      // Active jobs finish (or stay queued for another process); then what was stored is relayed.
      await jobs?.stop();
      for (const loop of background) await loop.stop();
      await closeStage('resources');
      producerRedis?.disconnect();
      workerRedis?.disconnect();
      await runtime.close();
    },
  };
}
