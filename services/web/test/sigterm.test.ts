import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { io as connect, type Socket } from 'socket.io-client';
import {
  createApiToken,
  createMember,
  createTestContext,
  createWorkspace,
  entryCommand,
  holdRequest,
  killAll,
  runLoad,
  startService,
  waitUntil,
  type ServiceProcess,
  type TestContext,
  sessionCookie,
} from '@ferry/testing';

/**
 * SIGTERM to web (services/web/src/main.ts, as a single web runs it: relaying too) with a page's
 * live socket open and feedback being filed through the API: the socket is disconnected (the page
 * reconnects to another web), requests in flight get their 201, the process exits 0 well within
 * onShutdown's 25 s, and every 201 is one stored ticket, nothing more.
 */
describe('web drains on SIGTERM', () => {
  let ctx: TestContext;
  const processes: ServiceProcess[] = [];
  let socket: Socket | undefined;

  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    socket?.close();
    await killAll(processes);
    await ctx.close();
  });

  it('disconnects live sockets, answers requests in flight and stores each ticket once', async () => {
    const web = await startService({
      command: entryCommand('services/web/src/main.ts'),
      env: ctx.env,
    });
    processes.push(web);
    const workspace = await createWorkspace(ctx.db);
    const owner = await createMember(ctx.db, workspace, { role: 'owner' });
    const token = await createApiToken(ctx.db, workspace, { scopes: ['tenant:write'] });

    socket = connect(web.url, {
      transports: ['websocket'],
      extraHeaders: { cookie: await sessionCookie(web.url, owner.user.email, owner.user.password) },
      reconnection: false,
      forceNew: true,
    });
    const live = socket;
    await new Promise<void>((resolve, reject) => {
      live.once('connect', resolve);
      live.once('connect_error', reject);
    });
    const disconnected = new Promise<string>((resolve) => live.once('disconnect', resolve));

    const headers = { authorization: `Bearer ${token.raw}`, 'content-type': 'application/json' };
    const file = async (n: number): Promise<{ status: number; id?: string }> => {
      const res = await fetch(`${web.url}/api/v1/feedback`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ note: `ticket ${n}` }),
      });
      const body = (await res.json()) as { id?: string };
      return { status: res.status, id: body.id };
    };
    const load = runLoad(file, 4);
    await waitUntil(() => load.answered.length >= 30, 'the load to get going', 30_000);
    const held = await Promise.all(
      [0, 1].map((i) =>
        holdRequest(`${web.url}/api/v1/feedback`, {
          headers,
          body: JSON.stringify({ note: `held ${i}` }),
        }),
      ),
    );
    load.answered.push(await file(1_000_000));

    const exiting = web.terminate();
    // io.close() closes the engine under the socket: the page's client reconnects elsewhere.
    expect(['io server disconnect', 'transport close']).toContain(await disconnected);
    const heldAnswers = await Promise.all(held.map((request) => request.finish()));
    expect(heldAnswers.map((answer) => answer.status)).toEqual([201, 201]);
    const exit = await exiting;
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.ms).toBeLessThan(10_000);
    const answered = await load.stop();
    expect(answered.every((answer) => answer.status === 201)).toBe(true);

    const promised = [
      ...answered.map((answer) => answer.id!),
      ...heldAnswers.map((answer) => (JSON.parse(answer.body) as { id: string }).id),
    ];
    const stored = await ctx.db
      .selectFrom('feedback')
      .select('id')
      .where('workspace_id', '=', workspace.id)
      .execute();
    expect(stored.map((row) => row.id).sort()).toEqual([...promised].sort());
  });
});
