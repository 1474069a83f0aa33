import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@ferry/core';
import { lastHourMinutes } from '../src/features/ops/figures.js';
import { sampleOpsMinute, deploymentHistory } from '../src/features/ops/history.js';
import { flakyQueue, seedActivity, waitForState, type FlakyQueue } from './ops-fixtures.js';
import { signedInSeat, startWeb, type WebHarness } from './harness.js';

/** The Ops page over HTTP: who may see it, the figures, retrying a failed job, /metrics. */
describe('Ops page', () => {
  let web: WebHarness;
  let ingest: FlakyQueue;
  beforeAll(async () => {
    web = await startWeb();
    ingest = flakyQueue(web, 'error-ingest');
  });
  afterAll(async () => {
    await ingest?.close();
    await web?.close();
  });

  /**
   * A failed job that names `owner`'s workspace: listed on its Ops page and not on another
   * workspace's; another admin's retry is 404, the owner's is 303 and the job then completes.
   */
  async function expectRetriedByItsWorkspaceOnly(
    owner: Awaited<ReturnType<typeof signedInSeat>>,
    queue: 'webhook-drain' | 'webhook-delivery',
    jobId: string,
  ): Promise<void> {
    const other = await signedInSeat(web, 'admin');
    const row = `data-job="${queue}/${jobId}"`;
    expect((await owner.client.get(`${owner.base}/ops`)).text).toContain(row);
    expect((await other.client.get(`${other.base}/ops`)).text).not.toContain(row);
    const path = (base: string) => `${base}/ops/jobs/${queue}/${jobId}/retry`;
    const refused = await other.client.post(path(other.base), {}, { csrfFrom: other.base });
    expect(refused.status).toBe(404);
    const retried = await owner.client.post(path(owner.base), {}, { csrfFrom: owner.base });
    expect(retried.status).toBe(303);
    await waitForState(web, queue, jobId, 'completed');
  }

  it('retries a failed error-ingest job from the page: it runs again and succeeds', async () => {
    const { workspace, client, base } = await signedInSeat(web, 'admin');
    const payload = { workspaceId: workspace.id, reports: [{ message: 'boom' }] };
    const jobId = await ingest.failOnce(payload);
    expect(ingest.runs).toHaveLength(1);

    const page = await client.get(`${base}/ops`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`data-job="error-ingest/${jobId}"`);
    expect(page.text).toContain('Postgres is down for maintenance');
    const retry = `${base}/ops/jobs/error-ingest/${jobId}/retry`;
    expect(page.text).toContain(`action="${retry}"`);

    const answer = await client.post(retry, {}, { csrfFrom: `${base}/ops` });
    expect(answer.status).toBe(303);
    expect(answer.location).toBe(`${base}/ops`);
    const done = await waitForState(web, 'error-ingest', jobId, 'completed');
    expect(ingest.runs).toHaveLength(2);
    expect(ingest.runs[1]).toMatchObject(payload);
    expect(done.attemptsMade).toBe(1);

    const after = await client.get(`${base}/ops`);
    expect(after.text).toContain(`Job #${jobId} of error-ingest is queued again`);
    expect(after.text).not.toContain(`data-job="error-ingest/${jobId}"`);
    // A second POST (a double click, an old tab) finds nothing failed and says so.
    const again = await client.post(retry, {}, { csrfFrom: `${base}/ops` });
    expect(again.status).toBe(303);
    expect((await client.get(`${base}/ops`)).text).toContain('is no longer failed');
  });

  it("keeps a workspace's failed jobs and figures to its admins", async () => {
    const owner = await signedInSeat(web, 'admin');
    const jobId = await ingest.failOnce({ workspaceId: owner.workspace.id, reports: [{}] });
    const retryPath = (base: string) => `${base}/ops/jobs/error-ingest/${jobId}/retry`;

    const other = await signedInSeat(web, 'owner');
    const theirs = await other.client.get(`${other.base}/ops`);
    expect(theirs.status).toBe(200);
    expect(theirs.text).not.toContain(`data-job="error-ingest/${jobId}"`);
    const refused = await other.client.post(retryPath(other.base), {}, { csrfFrom: other.base });
    expect(refused.status).toBe(404);
    expect(
      (await other.client.post(`${other.base}/ops/jobs/nope/1/retry`, {}, { csrfFrom: other.base }))
        .status,
    ).toBe(404);
    // Another workspace's path is not found for a non-member either.
    const crossing = await other.client.post(retryPath(owner.base), {}, { csrfFrom: other.base });
    expect(crossing.status).toBe(404);

    for (const role of ['member', 'guest'] as const) {
      const seat = await signedInSeat(web, role);
      expect((await seat.client.get(`${seat.base}/ops`)).status).toBe(403);
      expect((await seat.client.get(`${seat.base}/ops/figures`)).status).toBe(403);
      const post = await seat.client.post(
        `${seat.base}/ops/jobs/error-ingest/${jobId}/retry`,
        {},
        {
          csrfFrom: seat.base,
        },
      );
      expect(post.status).toBe(403);
      expect((await seat.client.get(seat.base)).text).not.toContain(`${seat.base}/ops"`);
    }
    expect((await owner.client.get(owner.base)).text).toContain(`${owner.base}/ops"`);
    // Still failed: nobody else's request touched it.
    await waitForState(web, 'error-ingest', jobId, 'failed');
  });

  it('ties a job to its workspace through the hook it names (webhook-drain)', async () => {
    const drains = flakyQueue(web, 'webhook-drain');
    try {
      const owner = await signedInSeat(web, 'admin');
      const { hook } = await seedActivity(web.ctx.db, web.deps.box, owner.workspace, owner.seat);
      const jobId = await drains.failOnce({ hookId: hook.id });
      await expectRetriedByItsWorkspaceOnly(owner, 'webhook-drain', jobId);
      expect(drains.runs).toEqual([{ hookId: hook.id }, { hookId: hook.id }]);
    } finally {
      await drains.close();
    }
  });

  it('ties a merged fan-out job (many messages, relayBatchMax) to the workspace it names', async () => {
    const fanOuts = flakyQueue(web, 'webhook-delivery');
    try {
      const owner = await signedInSeat(web, 'admin');
      const item = () => ({
        eventId: newId('outbox'),
        messageId: newId('message'),
        roomId: newId('room'),
        workspaceId: owner.workspace.id,
      });
      const payload = { workspaceId: owner.workspace.id, batch: [item(), item()] };
      const jobId = await fanOuts.failOnce(payload);
      await expectRetriedByItsWorkspaceOnly(owner, 'webhook-delivery', jobId);
      expect(
        fanOuts.runs.filter((run) => JSON.stringify(run) === JSON.stringify(payload)),
      ).toHaveLength(2);
    } finally {
      await fanOuts.close();
    }
  });

  it("shows this workspace's ingest, deliveries, slowest hooks and agents, per minute", async () => {
    const { workspace, seat, client, base } = await signedInSeat(web, 'admin');
    await seedActivity(web.ctx.db, web.deps.box, workspace, seat);
    // Another workspace's activity in the same minutes must not leak into these figures.
    const other = await signedInSeat(web, 'admin');
    await seedActivity(web.ctx.db, web.deps.box, other.workspace, other.seat, {
      host: 'other.example.test',
    });

    const res = await client.get(`${base}/ops/figures`);
    expect(res.status).toBe(200);
    const figures = JSON.parse(res.text) as {
      text: Record<string, string>;
      charts: Record<string, { label: string; paths: string[] }>;
    };
    expect(figures.text['ingest.hour']).toBe('5 reports accepted in the last hour');
    expect(figures.text['deliveries.hour']).toBe('5 deliveries, 2 failed, in the last hour');
    expect(figures.text['agents.online']).toBe('1');
    expect(figures.text['agents.total']).toBe('of 2 agents registered');
    expect(figures.text['queue.error-ingest.failed']).toMatch(/^\d+$/);
    expect(figures.charts.ingest!.paths).toHaveLength(2);
    expect(figures.charts.ingest!.label).toContain('peak 3');
    expect(figures.charts.deliveries!.label).toContain('peak 4');

    const page = await client.get(`${base}/ops`);
    expect(page.text).toContain('hooks.example.test');
    expect(page.text).not.toContain('other.example.test');
    // The target's path and query can hold the receiver's token: the page shows the host only.
    expect(page.text).not.toContain('sekrit');
    expect(page.text).toContain(`<td class="num">10 s</td>`);
    expect(page.text).toContain('src="/assets/ops.js"');
    expect((await client.get('/assets/ops.js')).status).toBe(200);
  });

  it('samples queue counts once a minute however many processes try; the same on /metrics', async () => {
    const owner = await signedInSeat(web, 'admin');
    await ingest.failOnce({ workspaceId: owner.workspace.id, reports: [{}] });
    const deps = { ...web.deps, prefix: web.ctx.config.REDIS_PREFIX };
    const now = Date.now();
    const tries = await Promise.all([sampleOpsMinute(deps, now), sampleOpsMinute(deps, now)]);
    expect(tries.sort()).toEqual([false, true]);
    expect(await sampleOpsMinute(deps, now)).toBe(false);
    expect(await sampleOpsMinute(deps, now + 60_000)).toBe(true);

    const history = await deploymentHistory(web.ctx.redis, deps.prefix, now);
    const last = lastHourMinutes(now).length - 1;
    expect(history.outboxLagMs).toHaveLength(last + 1);
    expect(history.outboxLagMs[last]).toEqual(expect.any(Number));
    expect(history.outboxLagMs[0]).toBeNull();
    expect(history.queues['error-ingest']!.failed[last]).toBeGreaterThanOrEqual(1);

    const metrics = await fetch(`${web.url}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(
      /ferry_queue_jobs\{queue="error-ingest",state="failed",service="web"\} [1-9]/,
    );
    expect(metrics).toContain('ferry_queue_oldest_waiting_seconds{queue="webhook-delivery"');
    expect(metrics).toMatch(/ferry_outbox_lag_seconds\{service="web"\} \d/);
  });
});
