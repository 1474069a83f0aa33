import { sql } from 'kysely';
import type { TestContext } from '@ferry/testing';
import { postMessages, type PostMessageInput } from '@ferry/workspace';
import { startService, stopChild, waitHealthy } from '../lib/children.js';
import { log, perSecond } from '../ingest/stats.js';
import {
  CEILING_SENDERS,
  receiverCeiling,
  receiverReset,
  waitReceived,
} from '../webhooks/receiver-client.js';
import { formatActivity, samplePgActivity } from '../webhooks/pg-activity.js';
import { loadAverage, treeCpu, type CpuWindow } from './cpu.js';
import { seedWorkspaces, startFerry, stopFerry, type Seeded } from './ferry.js';

/**
 * Issue #27's outgoing backlog on `pnpm start`: rooms seeded with an outgoing hook each (`pnpm seed
 * --outgoing-url`, the product's seed path) to bench/webhooks/receiver.ts, which answers 200 at
 * once; a backlog of member messages written while `pnpm start` is down (the domain's postMessages,
 * what the members' route calls; their message_created events wait in the outbox), then a fresh
 * `pnpm start` and the receiver counting what arrives: deliveries per second, first to last, and
 * the CPU per delivery. The ceiling, same run: the same receiver fed by a plain loop of signed
 * POSTs from this process (bench:webhooks' ceiling).
 */
const MESSAGES = Number(process.env.BENCH_OUT_MESSAGES ?? 20_000);
const HOOKED_ROOMS = Number(process.env.BENCH_OUT_ROOMS ?? 20);
/** Messages per postMessages call while building the backlog (the incoming group commit's size). */
const WRITE_BATCH = 100;
const CEILING_MS = 5_000;

export interface OutgoingFigures {
  messages: number;
  rooms: number;
  deliveries: number;
  duplicates: number;
  /** Distinct deliveries per second, first received to last received. */
  perSecond: number;
  /** The same from `pnpm start` answering /healthz (its relay had started by then). */
  fromHealthy: number;
  firstAfterHealthyMs: number;
  cpu: CpuWindow;
  ceilingPerSecond: number;
  /** The POST loop's own CPU per POST (signing and node:http, this process): a delivery's floor. */
  ceilingCpuPerPostMs: number;
  loadAfter: string;
}

/** The member of each seeded workspace (seed output names them by email). */
async function memberIds(ctx: TestContext, seeded: readonly Seeded[]) {
  const rows = await sql<{ workspace_id: string; id: string }>`
    select m.workspace_id, m.id from members m join users u on u.id = m.user_id
    where m.workspace_id = any(${seeded.map((s) => s.workspace.id)}::text[])
      and u.email = any(${seeded.map((s) => s.member.email)}::text[])`.execute(ctx.db);
  return new Map(rows.rows.map((r) => [r.workspace_id, r.id]));
}

async function writeBacklog(ctx: TestContext, seeded: readonly Seeded[]): Promise<number> {
  const members = await memberIds(ctx, seeded);
  const inputs: PostMessageInput[] = Array.from({ length: MESSAGES }, (_, i) => {
    const target = seeded[i % seeded.length]!;
    const member = members.get(target.workspace.id);
    if (!member) throw new Error(`no member found for seeded workspace ${target.workspace.id}`);
    return {
      roomId: target.room.id,
      workspaceId: target.workspace.id,
      authorKind: 'member',
      authorMemberId: member,
      displayName: 'Ada',
      body: `Backlog message ${i}: the deploy of build ${i} finished`,
    };
  });
  const started = performance.now();
  for (let i = 0; i < inputs.length; i += WRITE_BATCH) {
    await postMessages(ctx.db, inputs.slice(i, i + WRITE_BATCH));
  }
  return MESSAGES / ((performance.now() - started) / 1000);
}

/** Runs with `pnpm start` stopped; starts it on `port` and stops it again. */
export async function measureOutgoing(
  ctx: TestContext,
  port: number,
  receiverPort: number,
): Promise<OutgoingFigures> {
  log('## Outgoing backlog on pnpm start');
  const receiver = startService('bench/webhooks/receiver.ts', { PORT: String(receiverPort) });
  try {
    await waitHealthy(receiver, receiverPort, 30_000, '/__stats');
    const seeded = await seedWorkspaces(ctx, port, HOOKED_ROOMS, [
      '--outgoing-url',
      `http://127.0.0.1:${receiverPort}/hook`,
    ]);
    const writePerSecond = await writeBacklog(ctx, seeded);
    log(
      `  ${HOOKED_ROOMS} workspaces seeded with an outgoing hook on their room; ${MESSAGES} member ` +
        `messages written while pnpm start was down (${perSecond(writePerSecond)}), then pnpm start`,
    );
    await receiverReset(receiverPort);
    const ferry = await startFerry(ctx, port);
    const healthyAt = performance.timeOrigin + performance.now();
    const cpu = treeCpu(ferry.child.pid!);
    // Which statements Postgres spends its share on: it cost more CPU per delivery than pnpm start
    // itself before the gap check got its index (RESULTS.md), so it is printed with the figures.
    const activity = samplePgActivity(ctx.db);
    let figures: Omit<OutgoingFigures, 'ceilingPerSecond' | 'ceilingCpuPerPostMs'>;
    let pg: Awaited<ReturnType<typeof activity.stop>>;
    try {
      const got = await waitReceived(receiverPort, MESSAGES, 600_000);
      pg = await activity.stop();
      figures = {
        messages: MESSAGES,
        rooms: HOOKED_ROOMS,
        deliveries: got.unique,
        duplicates: got.duplicates,
        perSecond: got.unique / ((got.lastAt - got.firstAt) / 1000),
        fromHealthy: got.unique / ((got.lastAt - healthyAt) / 1000),
        firstAfterHealthyMs: got.firstAt - healthyAt,
        cpu: cpu.since(),
        loadAfter: loadAverage(),
      };
    } finally {
      await stopFerry(ferry);
    }
    const c = figures.cpu.cpuSeconds;
    const per = (seconds: number): string =>
      `${((seconds * 1000) / Math.max(1, figures.deliveries)).toFixed(3)} ms`;
    log(
      `  ${figures.deliveries} deliveries (${figures.duplicates} duplicate webhook-ids): ` +
        `${perSecond(figures.perSecond)} first -> last received; ${perSecond(figures.fromHealthy)} ` +
        `from /healthz answering (first delivery ${(figures.firstAfterHealthyMs / 1000).toFixed(2)} s after)`,
    );
    log(
      `  CPU per delivery: pnpm start ${per(c.ferry)}, postgres ${per(c.postgres)}, redis ` +
        `${per(c.redis)}; the rest of the host (the receiver included) ` +
        `${(c.other / figures.cpu.seconds).toFixed(2)} cores; load average now ${figures.loadAfter}`,
    );
    for (const line of formatActivity(pg)) log(line);
    await receiverReset(receiverPort);
    await receiverCeiling(receiverPort, 1_000);
    await receiverReset(receiverPort);
    const ceiling = await receiverCeiling(receiverPort, CEILING_MS);
    log(
      `  ceiling: the receiver fed by a signed POST loop (${CEILING_SENDERS} keep-alive senders, ` +
        `this process): ${perSecond(ceiling.perSecond)}, its CPU per POST ` +
        `${ceiling.cpuPerPostMs.toFixed(3)} ms`,
    );
    return {
      ...figures,
      ceilingPerSecond: ceiling.perSecond,
      ceilingCpuPerPostMs: ceiling.cpuPerPostMs,
    };
  } finally {
    await stopChild(receiver);
  }
}
