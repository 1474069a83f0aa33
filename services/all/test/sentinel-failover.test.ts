import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, redisMasterUrl } from '@ferry/core';
import {
  createTestContext,
  entryCommand,
  killAll,
  Receiver,
  runLoad,
  startService,
  waitFor,
  waitUntil,
  type ServiceProcess,
  type TestContext,
} from '@ferry/testing';
import { isAccepted, prepareFailoverWorld, type Answer } from './support/failover-load.js';
import { startSentinelCluster, type SentinelCluster } from './support/sentinel-cluster.js';

/**
 * Issue 47 part 4: `pnpm start` on REDIS_URL=redis+sentinel://… (a master, a replica and three
 * Sentinels of this test's own) under steady load: error reports, incoming-webhook posts, and
 * members' messages that a room hook delivers to a loopback receiver (failover-load.ts). The
 * master is SIGKILLed mid-load; the Sentinels promote the replica; the load goes on. Every report
 * answered 202 is stored, every post answered 201 is stored, every message accepted is delivered.
 * While there is no master a request may be refused with a 503 (Ferry fails fast rather than
 * hang), never accepted and lost. Prints what the failover cost (bench/RESULTS.md keeps them).
 */
/** A loaded 2-core host: the Sentinels' vote, ioredis' retries and the child all run slower. */
const RECOVERY_BOUND_MS = 45_000;

describe('Redis Sentinel failover under load', () => {
  let ctx: TestContext;
  let cluster: SentinelCluster;
  let receiver: Receiver;
  let ferry: ServiceProcess | undefined;

  beforeAll(async () => {
    ctx = await createTestContext();
    cluster = await startSentinelCluster();
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    if (ferry) await killAll([ferry]);
    await receiver?.close();
    await cluster?.stop();
    await ctx?.close();
  });

  it('keeps every accepted report, post and message across the failover', async () => {
    const world = await prepareFailoverWorld(ctx, receiver);
    const server = await startService({
      command: entryCommand('services/all/src/main.ts'),
      env: {
        ...ctx.env,
        REDIS_URL: cluster.url,
        FERRY_PROCESSES: '1',
        ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
        INGEST_RATE_LIMIT_PER_MINUTE: '1000000',
        WEBHOOK_RATE_LIMIT_PER_MINUTE: '1000000',
        LOG_LEVEL: 'warn',
        LOG_FORMAT: 'json',
      },
    });
    ferry = server;
    const { send, missing } = await world.clients(server.url);
    const load = runLoad(send, 6, 240_000);
    const acceptedSoFar = () => load.answered.filter(isAccepted).length;
    await waitUntil(() => acceptedSoFar() >= 150, 'the load to get going (150 accepted)', 60_000);

    const oldMaster = await waitFor(cluster.masterPort, 'the Sentinels to name the master');
    const killedAt = Date.now();
    await cluster.kill(oldMaster);
    const readyz = watchReadyz(server.url, killedAt);
    const newMaster = await waitFor(
      async () => {
        const port = await cluster.masterPort();
        return port !== undefined && port !== oldMaster ? port : undefined;
      },
      () => `the Sentinels to promote the replica (+switch-master)\n${cluster.logs()}`,
      RECOVERY_BOUND_MS,
      50,
    );
    const promotedAt = Date.now();
    const firstAfter = await waitFor(
      () => load.answered.find((a) => a.sentAt > promotedAt && isAccepted(a)),
      () =>
        `a request sent after the promotion to be accepted (${load.answered.length} answered, ` +
        `${load.unanswered()} unanswered, last ${JSON.stringify(load.answered.slice(-3))})\n` +
        server.log().slice(-4_000),
      RECOVERY_BOUND_MS,
      50,
    );
    const acceptedAtRecovery = acceptedSoFar();
    await waitUntil(
      () => acceptedSoFar() >= acceptedAtRecovery + 150,
      'the load to go on on the new master (150 more accepted)',
      60_000,
    );
    const answered = await load.stop();
    const readyAgainAt = await readyz;

    const refused = answered.filter((a) => !isAccepted(a));
    const wrong = refused.filter((a) => a.status !== 503);
    expect(
      wrong.length,
      `refusals other than 503: ${JSON.stringify(wrong.slice(0, 5))}\n${errorsBut503(server.log())}`,
    ).toBe(0);
    const lostCount = async () =>
      Object.values(await missing(answered)).reduce((sum, ids) => sum + ids.length, 0);
    await waitUntil(
      async () => (await lostCount()) === 0,
      'every accepted report and post stored and every accepted message delivered',
      90_000,
      200,
    ).catch(async (error: unknown) => {
      throw new Error(
        `${String(error)}: missing ${JSON.stringify(await missing(answered))}\n` +
          server.log().slice(-4_000),
      );
    });
    expect(newMaster).not.toBe(oldMaster);
    // What npm run backup / restore connect to: the master the Sentinels name now.
    expect(await redisMasterUrl(loadConfig({ REDIS_URL: cluster.url }).redis)).toBe(
      `redis://127.0.0.1:${newMaster}/0`,
    );
    expect(firstAfter.answeredAt - killedAt).toBeLessThan(RECOVERY_BOUND_MS);

    const count = (kind: Answer['kind']) =>
      answered.filter((a) => a.kind === kind && isAccepted(a)).length;
    const figures = {
      promotedMs: promotedAt - killedAt,
      // From the kill to the answer of the first request sent after the promotion and accepted.
      recoveredMs: firstAfter.answeredAt - killedAt,
      readyzBackMs: readyAgainAt === undefined ? null : readyAgainAt - killedAt,
      longestGapMs: longestGap(answered.filter(isAccepted)),
      refused503: refused.length,
      accepted: { reports: count('report'), posts: count('post'), messages: count('message') },
      lost: 0,
    };
    console.log(`sentinel failover: ${JSON.stringify(figures)}`);
  });
});

/**
 * /readyz from the kill on: resolves with when it answered 200 again after an answer that was not
 * (undefined if it never went unready, or stayed unready past twice the recovery bound).
 */
async function watchReadyz(url: string, since: number): Promise<number | undefined> {
  let sawUnready = false;
  while (Date.now() - since < RECOVERY_BOUND_MS * 2) {
    const res = await fetch(`${url}/readyz`).catch(() => undefined);
    await res?.arrayBuffer().catch(() => undefined);
    if (res?.status === 200 && sawUnready) return Date.now();
    if (res?.status === 200 && Date.now() - since > RECOVERY_BOUND_MS) return undefined;
    if (res?.status !== 200) sawUnready = true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}

/** The server's error lines other than the 503s a failover is expected to give. */
function errorsBut503(log: string): string {
  return log
    .split('\n')
    .filter((line) => /"level":50/.test(line) && !/"status":503|worker error/.test(line))
    .slice(0, 10)
    .join('\n');
}

/** The longest time between two accepted answers: the outage as the clients saw it. */
function longestGap(answers: readonly Answer[]): number {
  const times = answers.map((a) => a.answeredAt).sort((x, y) => x - y);
  let gap = 0;
  for (let i = 1; i < times.length; i++) gap = Math.max(gap, times[i]! - times[i - 1]!);
  return gap;
}
