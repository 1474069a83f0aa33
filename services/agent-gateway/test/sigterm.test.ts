import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createApiToken,
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
import { startRelay } from '@ferry/workspace';
import { fileNote } from './support/procs.js';
import { openSse, type SseClient } from './support/sse.js';

/**
 * SIGTERM to an agent-gateway (services/agent-gateway/src/main.ts, as compose runs it) holding an
 * agent's SSE stream while the agent posts: the stream ends (an open stream would keep the server
 * from closing until onShutdown's 25 s cut-off), posts in flight get their answers, the process
 * exits 0 quickly, and the agent reconnecting to another gateway gets its unacked work again.
 */
const command = entryCommand('services/agent-gateway/src/main.ts');
const INSTALL_ID = 'sigterm-test-0001';

describe('agent-gateway drains on SIGTERM', () => {
  let ctx: TestContext;
  let relay: { stop(): Promise<void> };
  const processes: ServiceProcess[] = [];
  const streams: SseClient[] = [];

  beforeAll(async () => {
    ctx = await createTestContext();
    relay = startRelay(ctx);
  });
  afterAll(async () => {
    for (const stream of streams) stream.close();
    await killAll(processes);
    await relay.stop();
    await ctx.close();
  });

  const workIds = (client: SseClient): string[] =>
    client.events
      .filter((event) => event.event === 'work')
      .map((event) => (event.data as { work_id: string }).work_id);

  it('ends open streams, answers posts in flight, and the agent resumes on another gateway', async () => {
    const env = { ...ctx.env, AGENT_KEEPALIVE_MS: '500' };
    const [first, second] = await Promise.all([
      startService({ command, env }),
      startService({ command, env }),
    ]);
    processes.push(first, second);
    const workspace = await createWorkspace(ctx.db);
    const token = await createApiToken(ctx.db, workspace, { scopes: ['platform:dispatch'] });
    const headers = {
      authorization: `Bearer ${token.raw}`,
      'x-service-install-id': INSTALL_ID,
    };
    const stream = await openSse(`${first.url}/agents/v1/stream`, headers);
    streams.push(stream);
    expect(stream.status).toBe(200);
    for (let i = 0; i < 3; i++) await fileNote(ctx.db, workspace.id, `Ticket ${i}`);
    await stream.waitFor(() => workIds(stream).length >= 3, 'three work items', 30_000);
    const [ackedId, ...unacked] = workIds(stream);

    const post = async (path: string, body: unknown): Promise<number> => {
      const res = await fetch(`${first.url}/agents/v1${path}`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      await res.arrayBuffer();
      return res.status;
    };
    const load = runLoad(
      () => post('/events', { work_id: ackedId, kind: 'progress', text: 'Working' }),
      3,
    );
    await waitUntil(() => load.answered.length >= 20, 'the agent posts to get going', 30_000);
    const held = await Promise.all([
      holdRequest(`${first.url}/agents/v1/ack`, {
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ work_id: ackedId }),
      }),
      holdRequest(`${first.url}/agents/v1/heartbeat`, {
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ activity: 'Working on a ticket' }),
      }),
    ]);
    load.answered.push(await post('/heartbeat', {}));

    const exiting = first.terminate();
    await stream.closed;
    const answers = await Promise.all(held.map((request) => request.finish()));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    const exit = await exiting;
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.ms).toBeLessThan(10_000);
    const answered = await load.stop();
    expect(answered.every((status) => status === 200)).toBe(true);

    // The agent reconnects elsewhere: what it acked stays done, the rest comes again.
    const again = await openSse(`${second.url}/agents/v1/stream`, headers);
    streams.push(again);
    await again.waitFor(() => workIds(again).length >= unacked.length, 'the unacked work', 30_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(workIds(again).sort()).toEqual([...unacked].sort());
    again.close();
    expect(await second.terminate()).toMatchObject({ code: 0 });
  });
});
