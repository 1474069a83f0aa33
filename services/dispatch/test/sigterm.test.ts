import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  entryCommand,
  holdRequest,
  killAll,
  runLoad,
  startService,
  waitUntil,
  type ServiceProcess,
} from '@ferry/testing';
import { dispatchWorld, type DispatchWorld } from './support/world.js';

/**
 * SIGTERM under load to both dispatch processes compose runs (services/dispatch/src/main.ts with
 * DISPATCH_ROLE=http and =worker): each exits 0 well within onShutdown's 25 s; dispatch requests
 * in flight get their 202; every 202 is one dispatch; the worker's active steps finish (or stay
 * queued) and a fresh worker completes every flow with no step done twice (one issue, one task).
 */
const command = entryCommand('services/dispatch/src/main.ts');

describe('dispatch drains on SIGTERM', () => {
  let world: DispatchWorld;
  const processes: ServiceProcess[] = [];

  beforeAll(async () => {
    world = await dispatchWorld({
      worker: false,
      env: { DISPATCH_POLL_MS: '100', DISPATCH_POLL_MAX_MS: '200' },
    });
    world.fake.scriptTasks(['in_progress', { state: 'completed', pr: true }]);
  });
  afterAll(async () => {
    await killAll(processes);
    await world.close();
  });

  it('answers the dispatches it took and runs each flow once', async () => {
    const [http, worker] = await Promise.all([
      startService({ command, env: { ...world.env, DISPATCH_ROLE: 'http' } }),
      startService({ command, env: { ...world.env, DISPATCH_ROLE: 'worker' } }),
    ]);
    processes.push(http, worker);
    const dispatchOn = (url: string) => async (): Promise<{ status: number; id?: string }> => {
      const ticket = await world.fileTicket();
      const res = await fetch(`${url}/api/v1/feedback/${ticket.id}/dispatch`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${world.writeToken}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ repo: world.shop.id }),
      });
      const body = (await res.json()) as { id?: string };
      return { status: res.status, id: body.id };
    };

    const load = runLoad(dispatchOn(http.url), 3);
    await waitUntil(() => load.answered.length >= 15, 'the dispatches to get going', 30_000);
    const heldTickets = [await world.fileTicket(), await world.fileTicket()];
    const held = await Promise.all(
      heldTickets.map((ticket) =>
        holdRequest(`${http.url}/api/v1/feedback/${ticket.id}/dispatch`, {
          headers: {
            authorization: `Bearer ${world.writeToken}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify({ repo: world.shop.id }),
        }),
      ),
    );
    load.answered.push(await dispatchOn(http.url)());

    const httpExit = http.terminate();
    const heldAnswers = await Promise.all(held.map((request) => request.finish()));
    expect(heldAnswers.map((answer) => answer.status)).toEqual([202, 202]);
    expect(await httpExit).toMatchObject({ code: 0, signal: null });
    expect((await httpExit).ms).toBeLessThan(10_000);
    const answered = await load.stop();
    expect(answered.every((answer) => answer.status === 202)).toBe(true);

    // The worker is in the middle of the flows when it gets its SIGTERM.
    const workerExit = await worker.terminate();
    expect(workerExit).toMatchObject({ code: 0, signal: null });
    expect(workerExit.ms).toBeLessThan(10_000);

    const promised = [
      ...answered.map((answer) => answer.id!),
      ...heldAnswers.map((answer) => (JSON.parse(answer.body) as { id: string }).id),
    ];
    const rows = await world.ctx.db
      .selectFrom('dispatches')
      .select(['id', 'status'])
      .where('workspace_id', '=', world.workspace.id)
      .execute();
    // Every 202 is one dispatch; nothing was stored without an answer.
    expect(rows.map((row) => row.id).sort()).toEqual([...promised].sort());
    expect(rows.some((row) => row.status !== 'completed')).toBe(true);

    // A fresh worker completes every flow, repeating no step.
    world.startWorker();
    const unfinished = async (): Promise<number> =>
      (
        await world.ctx.db
          .selectFrom('dispatches')
          .select('id')
          .where('workspace_id', '=', world.workspace.id)
          .where('status', '<>', 'completed')
          .execute()
      ).length;
    await waitUntil(async () => (await unfinished()) === 0, 'every dispatch to complete', 45_000);
    expect(world.fake.requestsTo('POST', '/repos/acme/shop/issues')).toHaveLength(promised.length);
    expect(world.fake.tasks()).toHaveLength(promised.length);
  });
});
