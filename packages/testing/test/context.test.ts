import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Receiver,
  createMember,
  createRoom,
  createTestContext,
  createWorkspace,
  type TestContext,
} from '../src/index.js';

describe('test context', () => {
  let a: TestContext;
  let b: TestContext;
  beforeAll(async () => {
    [a, b] = await Promise.all([createTestContext(), createTestContext()]);
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  it('gives each file its own migrated database and Redis prefix', async () => {
    const workspace = await createWorkspace(a.db);
    const member = await createMember(a.db, workspace, { role: 'owner' });
    await createRoom(a.db, workspace, { members: [member] });
    const inA = await a.db.selectFrom('rooms').select('id').execute();
    const inB = await b.db.selectFrom('rooms').select('id').execute();
    expect(inA).toHaveLength(1);
    expect(inB).toHaveLength(0);
    expect(a.config.REDIS_PREFIX).not.toBe(b.config.REDIS_PREFIX);
    expect(a.config.DATABASE_URL).not.toBe(b.config.DATABASE_URL);
  });
});

describe('Receiver', () => {
  it('records requests and fails on command', async () => {
    const receiver = await new Receiver().start();
    try {
      receiver.replyOnce({ status: 503, body: 'down' });
      const first = await fetch(`${receiver.url}/hook`, { method: 'POST', body: '{"a":1}' });
      const second = await fetch(`${receiver.url}/hook`, { method: 'POST', body: '{"a":2}' });
      expect(first.status).toBe(503);
      expect(second.status).toBe(200);
      await receiver.waitFor(2);
      expect(receiver.requests.map((r) => r.body)).toEqual(['{"a":1}', '{"a":2}']);
    } finally {
      await receiver.close();
    }
  });
});
