import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '@ferry/core';
import {
  createMember,
  createRoom,
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
} from '@ferry/testing';
import { createIncomingKey } from '@ferry/workspace';

/**
 * SIGTERM to webhooks-in (services/webhooks-in/src/main.ts, as compose runs it) while posts keep
 * coming: it exits 0 well within onShutdown's 25 s, posts in flight get their 201 (their group
 * commit is written before the pool closes), and every 201 is exactly one message, nothing more.
 */
describe('webhooks-in drains on SIGTERM', () => {
  let ctx: TestContext;
  const processes: ServiceProcess[] = [];

  beforeAll(async () => {
    ctx = await createTestContext({ WEBHOOK_RATE_LIMIT_PER_MINUTE: '1000000' });
  });
  afterAll(async () => {
    await killAll(processes);
    await ctx.close();
  });

  it('answers every post it took and stores each once', async () => {
    const service = await startService({
      command: entryCommand('services/webhooks-in/src/main.ts'),
      env: ctx.env,
    });
    processes.push(service);
    const workspace = await createWorkspace(ctx.db);
    const admin = await createMember(ctx.db, workspace, { role: 'admin' });
    const room = await createRoom(ctx.db, workspace, { members: [admin] });
    const { rawKey } = await createIncomingKey(ctx.db, new SecretBox(ctx.config.APP_SECRET), {
      workspaceId: workspace.id,
      roomId: room.id,
      name: 'Deploy bot',
      createdBy: admin.id,
    });
    const url = `${service.url}/wh/in/${rawKey}`;
    const post = async (n: number): Promise<{ status: number; body: string; id?: string }> => {
      const body = `post ${n}`;
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ body }),
      });
      const answer = (await res.json()) as { message_id?: string };
      return { status: res.status, body, id: answer.message_id };
    };

    const load = runLoad(post, 6);
    await waitUntil(() => load.answered.length >= 50, 'the load to get going', 30_000);
    const held = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        holdRequest(url, {
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ body: `held ${i}` }),
        }),
      ),
    );
    // A full round trip after the held requests connected: the server has read their headers.
    load.answered.push(await post(1_000_000));

    const exiting = service.terminate();
    const heldAnswers = await Promise.all(held.map((request) => request.finish()));
    expect(heldAnswers.map((answer) => answer.status)).toEqual([201, 201, 201, 201]);
    const exit = await exiting;
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.ms).toBeLessThan(10_000);
    const answered = await load.stop();
    expect(answered.every((answer) => answer.status === 201)).toBe(true);

    const promised = new Map<string, string>([
      ...answered.map((a): [string, string] => [a.id!, a.body]),
      ...heldAnswers.map((a, i): [string, string] => [
        (JSON.parse(a.body) as { message_id: string }).message_id,
        `held ${i}`,
      ]),
    ]);
    const stored = await ctx.db
      .selectFrom('messages')
      .select(['id', 'body'])
      .where('room_id', '=', room.id)
      .where('author_kind', '=', 'webhook')
      .execute();
    // Exactly the posts that got a 201: none lost, none twice, none stored without an answer.
    expect(new Map(stored.map((row) => [row.id, row.body]))).toEqual(promised);
    expect(stored).toHaveLength(promised.size);
  });
});
