import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  entryCommand,
  killAll,
  startService,
  waitUntil,
  type ServiceProcess,
} from '@ferry/testing';
import { dispatchWorld, type DispatchWorld } from './support/world.js';

const entry = fileURLToPath(new URL('../src/main.ts', import.meta.url));

/**
 * The dispatch worker as it runs in production (src/main.ts, DISPATCH_ROLE=worker), killed with
 * SIGKILL between steps: the issue is recorded, the agent task request is in flight. A second
 * worker picks the job up and finishes the flow from there: one issue, one task, one PR message.
 */
describe('dispatch worker killed between steps', () => {
  let world: DispatchWorld;
  const workers: ServiceProcess[] = [];

  beforeAll(async () => {
    world = await dispatchWorld({ worker: false });
    world.fake.scriptTasks(['in_progress', { state: 'completed', pr: true }]);
  });
  afterAll(async () => {
    await killAll(workers);
    await world.close();
  });

  async function startWorker(): Promise<ServiceProcess> {
    const worker = await startService({
      command: entryCommand(entry),
      env: { ...world.env, DISPATCH_ROLE: 'worker', LOG_LEVEL: 'trace' },
    });
    workers.push(worker);
    return worker;
  }

  it('resumes where it stopped, repeating no step', async () => {
    world.fake.hangNext({ method: 'POST', path: '/agents/repos/acme/shop/tasks' });
    const first = await startWorker();
    const ticket = await world.fileTicket();
    expect((await world.dispatch(ticket.id, world.shop.id)).status).toBe(202);
    await waitUntil(
      () => world.fake.requestsTo('POST', '/agents/repos/acme/shop/tasks').length === 1,
      'the task request to hang',
      30_000,
    );
    expect((await world.ticket(ticket.id)).dispatches[0]!.status).toBe('issue_opened');
    first.child.kill('SIGKILL');
    await first.exited;

    await startWorker();
    await waitUntil(
      async () => (await world.ticket(ticket.id)).dispatches[0]?.status === 'completed',
      'the second worker to finish the dispatch',
      45_000,
    );
    expect(world.fake.requestsTo('POST', '/repos/acme/shop/issues')).toHaveLength(1);
    expect(world.fake.issues('acme/shop')).toHaveLength(1);
    expect(world.fake.tasks()).toHaveLength(1);
    const messages = await world.messages(ticket);
    expect(messages.filter((m) => m.includes('opened a pull request'))).toHaveLength(1);
    expect(messages.filter((m) => m.startsWith('Opened issue'))).toHaveLength(1);
    expect((await world.ticket(ticket.id)).status).toBe('triaged');

    // Every line both workers wrote, at the most verbose level: no token, secret or key in any.
    const logs = workers.map((worker) => worker.log()).join('');
    expect(logs).toContain('"msg":"listening"');
    const tokens = new Set(
      world.fake.requests
        .map((r) => /^bearer (gh[su]_\S+)$/i.exec(r.headers.authorization ?? '')?.[1])
        .filter((t): t is string => Boolean(t)),
    );
    expect(tokens.size).toBeGreaterThanOrEqual(2);
    const keyBody = world.fake.privateKeyPem.split('\n')[1]!;
    for (const secret of [...tokens, world.fake.clientSecret, keyBody]) {
      expect(logs).not.toContain(secret);
    }
  });
});
