import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../src/seed.js';
import { FormClient, startWeb, type WebHarness } from './harness.js';

describe('seed', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWeb();
  });
  afterAll(async () => {
    await web.close();
  });

  it('creates a new usable demo workspace on every call', async () => {
    const config = { PUBLIC_URL: web.url, APP_SECRET: web.ctx.config.APP_SECRET };
    const first = await seedDemo(web.ctx.db, config);
    const second = await seedDemo(web.ctx.db, config, { outgoingUrl: 'http://127.0.0.1:9/hook' });
    expect(first.outgoing_webhook).toBeUndefined();
    expect(second.outgoing_webhook?.id).toMatch(/^owh_/);
    expect(second.outgoing_webhook?.secret).toEqual(expect.any(String));
    const hook = await web.ctx.db
      .selectFrom('outgoing_webhooks')
      .selectAll()
      .where('id', '=', second.outgoing_webhook!.id)
      .executeTakeFirstOrThrow();
    expect(hook).toMatchObject({
      room_id: second.room.id,
      target_url: 'http://127.0.0.1:9/hook',
      state: 'enabled',
    });
    expect(first.incoming_webhook.url).toBe(`${web.url}/wh/in/${first.incoming_webhook.key}`);
    const key = await web.ctx.db
      .selectFrom('incoming_webhooks')
      .selectAll()
      .where('room_id', '=', first.room.id)
      .executeTakeFirstOrThrow();
    expect(key.key_hash).not.toContain(first.incoming_webhook.key);
    expect(second.workspace.id).not.toBe(first.workspace.id);
    expect(first.room.url).toBe(
      `${web.url}/w/${first.workspace.id}/${first.workspace.slug}/rooms/${first.room.id}`,
    );

    const seats = await web.ctx.db
      .selectFrom('room_members')
      .innerJoin('members', 'members.id', 'room_members.member_id')
      .innerJoin('users', 'users.id', 'members.user_id')
      .select(['users.email', 'members.role'])
      .where('room_members.room_id', '=', first.room.id)
      .execute();
    expect(Object.fromEntries(seats.map((s) => [s.email, s.role]))).toEqual({
      [first.owner.email]: 'owner',
      [first.member.email]: 'member',
      [first.guest.email]: 'guest',
    });

    // Each token has exactly its scope.
    const write = await fetch(`${web.url}/api/v1/feedback`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${first.tokens.tenant_write}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ note: 'seeded' }),
    });
    expect(write.status).toBe(201);
    const { id } = (await write.json()) as { id: string };
    const read = await fetch(`${web.url}/api/v1/feedback/${id}`, {
      headers: { authorization: `Bearer ${first.tokens.tenant_read}` },
    });
    expect(read.status).toBe(200);
    const readCannotWrite = await fetch(`${web.url}/api/v1/feedback`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${first.tokens.tenant_read}`,
        'content-type': 'application/json',
      },
      body: '{"note":"x"}',
    });
    expect(readCannotWrite.status).toBe(403);
    const dispatchCannotRead = await fetch(`${web.url}/api/v1/feedback/${id}`, {
      headers: { authorization: `Bearer ${first.tokens.dispatch}` },
    });
    expect(dispatchCannotRead.status).toBe(403);

    // The printed passwords sign in.
    for (const person of [first.owner, first.member, first.guest]) {
      await new FormClient(web.url).signIn(person.email, person.password);
    }
  });
});
