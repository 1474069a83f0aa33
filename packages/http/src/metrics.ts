import type { Request, RequestHandler, Response } from 'express';
import { isId } from '@ferry/core';
import { Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  middleware: RequestHandler;
}

/** A registry per app (not the global one) so several apps in one process or test do not collide. */
export function createMetrics(service: string): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const middleware: RequestHandler = (req, res, next) => {
    const end = httpDuration.startTimer();
    res.on('finish', () => {
      end({ method: req.method, route: routeLabel(req, res), status: String(res.statusCode) });
    });
    next();
  };
  return { registry, httpDuration, middleware };
}

/**
 * The `route` label: the route's pattern, never its path. Paths hold workspace ids, slugs and
 * credentials, and a label per id would also grow the series without bound. A route the route
 * table declared says its pattern in `res.locals.routePattern`; otherwise the pattern is rebuilt
 * from the matched route (`req.baseUrl` holds the real values of the routers it went through).
 */
export function routeLabel(req: Request, res: Response): string {
  const declared: unknown = res.locals.routePattern;
  if (typeof declared === 'string' && declared) return declared;
  const routePath: unknown = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof routePath !== 'string') return 'unmatched';
  const pattern = patternOf(`${req.baseUrl}${routePath}`, req.params);
  // A sub-router's own `/` route under its mount path reads as the mount path.
  return pattern.length > 1 && pattern.endsWith('/') ? pattern.slice(0, -1) : pattern;
}

/**
 * Puts `:name` back for every segment that is a param's value. A segment that still reads as one
 * of our ids (a router mounted without mergeParams does not see its parents' params) becomes
 * `:id`, so an id never reaches a label.
 */
function patternOf(path: string, params: Record<string, unknown>): string {
  const paramByValue = new Map<string, string>();
  for (const [name, value] of Object.entries(params)) {
    if (typeof value === 'string' && value && !paramByValue.has(value)) {
      paramByValue.set(value, name);
    }
  }
  return path
    .split('/')
    .map((segment) => {
      if (!segment || segment.startsWith(':')) return segment;
      // baseUrl keeps the path as sent (percent-encoded); params are decoded.
      const name = paramByValue.get(safeDecode(segment)) ?? paramByValue.get(segment);
      if (name !== undefined) return `:${name}`;
      return isId(safeDecode(segment)) ? ':id' : segment;
    })
    .join('/');
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The deployment-wide figures the Ops page shows, as /metrics reads them (no tenant data). */
export interface OpsSnapshot {
  queues: {
    queue: string;
    waiting: number;
    active: number;
    delayed: number;
    failed: number;
    oldestWaitingAgeMs: number | null;
  }[];
  outboxLagMs: number;
}

/**
 * Gauges for queue counts, the oldest waiting job's age and the outbox lag, read from `read` on
 * each scrape (one read per scrape, shared by the three gauges, which prom-client collects at once).
 * For the process that serves the Ops page (web, or the all-in-one), not every service: the
 * figures are the deployment's, and one scrape target is enough.
 */
export function registerOpsGauges(registry: Registry, read: () => Promise<OpsSnapshot>): void {
  let pending: Promise<OpsSnapshot> | undefined;
  const snapshot = (): Promise<OpsSnapshot> =>
    (pending ??= read().finally(() => {
      pending = undefined;
    }));
  new Gauge({
    name: 'ferry_queue_jobs',
    help: 'Jobs per queue and state (waiting, active, delayed, failed)',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const q of (await snapshot()).queues) {
        for (const state of ['waiting', 'active', 'delayed', 'failed'] as const) {
          this.set({ queue: q.queue, state }, q[state]);
        }
      }
    },
  });
  new Gauge({
    name: 'ferry_queue_oldest_waiting_seconds',
    help: 'Age of the oldest waiting job per queue (0 when none waits)',
    labelNames: ['queue'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const q of (await snapshot()).queues) {
        this.set({ queue: q.queue }, (q.oldestWaitingAgeMs ?? 0) / 1000);
      }
    },
  });
  new Gauge({
    name: 'ferry_outbox_lag_seconds',
    help: 'Age of the oldest outbox event not yet relayed (0 when none waits)',
    registers: [registry],
    async collect() {
      this.set((await snapshot()).outboxLagMs / 1000);
    },
  });
}
