import os from 'node:os';
import { newId, SecretBox } from '@ferry/core';
import { createTestContext, createWorkspace, type TestContext } from '@ferry/testing';
import {
  createEndpoint,
  emitWorkspaceEvents,
  validateEndpoint,
  workspaceEvent,
  type WorkspaceEvent,
} from '@ferry/workspace';
import { basePort, startService, stopChild, waitHealthy } from '../lib/children.js';
import { log, perSecond, ratio } from '../ingest/stats.js';
import {
  CEILING_SENDERS,
  receiverCeiling,
  receiverReset,
  waitReceived,
} from '../webhooks/receiver-client.js';
import { loadAverage, treeCpu } from './cpu.js';
import { startFerry, stopFerry } from './ferry.js';

/**
 * Issue 44: workspace event webhook deliveries per second from a backlog, on `pnpm start`. The
 * shape of bench/start/outgoing.ts (room hooks), with event endpoints instead: K workspaces with
 * one endpoint each (subscribed to feedback.created) to bench/webhooks/receiver.ts, which answers
 * 200 at once; N events owed while `pnpm start` is down, through emitWorkspaceEvents (the path
 * every action emits by, 100 events a transaction), then a fresh `pnpm start` and the receiver
 * counting what arrives: deliveries per second first to last and from /healthz answering, CPU per
 * delivery. The ceiling, same run: the same receiver fed by a plain loop of signed POSTs from this
 * process. Load average before and after.
 *
 *   BENCH_LABEL=quiet pnpm --filter @ferry/bench run bench:events
 */
const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
const ENDPOINTS = Number(process.env.BENCH_EVENT_ENDPOINTS ?? 20);
const WRITE_BATCH = 100;
const CEILING_MS = 5_000;
const LABEL = process.env.BENCH_LABEL ?? 'unlabelled';

async function endpoints(ctx: TestContext, receiverPort: number): Promise<string[]> {
  const box = new SecretBox(ctx.config.APP_SECRET);
  const workspaceIds: string[] = [];
  for (let i = 0; i < ENDPOINTS; i++) {
    const workspace = await createWorkspace(ctx.db, { name: `Events ${i}` });
    const input = await validateEndpoint(
      ctx.db,
      workspace.id,
      {
        url: `http://127.0.0.1:${receiverPort}/events/${i}`,
        event_types: ['feedback.created'],
      },
      { allowPrivateTargets: true },
    );
    await createEndpoint(ctx.db, box, workspace.id, input, null);
    workspaceIds.push(workspace.id);
  }
  return workspaceIds;
}

/** A feedback.created as the catalog publishes it (the ticket itself is not needed to send it). */
function ticketEvent(workspaceId: string, i: number): WorkspaceEvent {
  return workspaceEvent({
    workspaceId,
    type: 'feedback.created',
    data: {
      ticket: {
        id: newId('feedback'),
        status: 'new',
        title: null,
        note: `Backlog ticket ${i}: the checkout button does nothing on Safari`,
        room_id: newId('room'),
        page_url: 'https://shop.example/checkout',
        reporter_label: 'Ada',
        error_group_id: null,
        assignee_member_id: null,
        created_at: new Date().toISOString(),
      },
    },
  });
}

async function writeBacklog(ctx: TestContext, workspaceIds: readonly string[]): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < EVENTS; i += WRITE_BATCH) {
    const batch = Array.from({ length: Math.min(WRITE_BATCH, EVENTS - i) }, (_, j) =>
      ticketEvent(workspaceIds[(i + j) % workspaceIds.length]!, i + j),
    );
    await ctx.db.transaction().execute((trx) => emitWorkspaceEvents(trx, batch));
  }
  return EVENTS / ((performance.now() - started) / 1000);
}

async function main(): Promise<void> {
  const loadBefore = loadAverage();
  log(`# Event webhook deliveries from a backlog (issue 44), ${new Date().toISOString()}`);
  log(
    `machine: ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB; node ` +
      `${process.version}; label: ${LABEL}; load average before ${loadBefore}`,
  );
  const port = basePort();
  const receiverPort = port + 2;
  const ctx = await createTestContext();
  const receiver = startService('bench/webhooks/receiver.ts', { PORT: String(receiverPort) });
  try {
    await waitHealthy(receiver, receiverPort, 30_000, '/__stats');
    const workspaceIds = await endpoints(ctx, receiverPort);
    const writePerSecond = await writeBacklog(ctx, workspaceIds);
    log(
      `  ${ENDPOINTS} workspaces with one event endpoint each (feedback.created); ${EVENTS} events ` +
        `owed while pnpm start was down (${perSecond(writePerSecond)} through emitWorkspaceEvents, ` +
        `${WRITE_BATCH} a transaction), then pnpm start`,
    );
    await receiverReset(receiverPort);
    const ferry = await startFerry(ctx, port);
    const healthyAt = performance.timeOrigin + performance.now();
    const cpu = treeCpu(ferry.child.pid!);
    let got: Awaited<ReturnType<typeof waitReceived>>;
    let window: ReturnType<typeof cpu.since>;
    try {
      got = await waitReceived(receiverPort, EVENTS, 600_000);
      window = cpu.since();
    } finally {
      await stopFerry(ferry);
    }
    const rate = got.unique / ((got.lastAt - got.firstAt) / 1000);
    const fromHealthy = got.unique / ((got.lastAt - healthyAt) / 1000);
    const per = (seconds: number): string =>
      `${((seconds * 1000) / Math.max(1, got.unique)).toFixed(3)} ms`;
    log(
      `  ${got.unique} deliveries (${got.duplicates} duplicate webhook-ids): ${perSecond(rate)} ` +
        `first -> last received; ${perSecond(fromHealthy)} from /healthz answering (first ` +
        `delivery ${((got.firstAt - healthyAt) / 1000).toFixed(2)} s after)`,
    );
    const c = window.cpuSeconds;
    log(
      `  CPU per delivery: pnpm start ${per(c.ferry)}, postgres ${per(c.postgres)}, redis ` +
        `${per(c.redis)}; the rest of the host ${(c.other / window.seconds).toFixed(2)} cores`,
    );
    await receiverReset(receiverPort);
    await receiverCeiling(receiverPort, 1_000);
    await receiverReset(receiverPort);
    const ceiling = await receiverCeiling(receiverPort, CEILING_MS);
    log(
      `  ceiling: the receiver fed by a signed POST loop (${CEILING_SENDERS} keep-alive senders, ` +
        `this process): ${perSecond(ceiling.perSecond)}; deliveries ${ratio(rate, ceiling.perSecond)}`,
    );
    log(`  load average after: ${loadAverage()}`);
  } finally {
    await stopChild(receiver);
    await ctx.close();
  }
}

await main();
