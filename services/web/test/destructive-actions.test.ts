import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '@ferry/core';
import { createProducer, type Producer } from '@ferry/queues';
import { createMember, createMessage, createRoom, createWorkspace } from '@ferry/testing';
import { createIncomingKey, createOutgoingHook } from '@ferry/workspace';
import { FormClient, startWeb, type WebHarness } from './harness.js';

/**
 * Destructive actions ask first (a GET page with the question; its button POSTs), and outgoing
 * hooks can be disabled and deleted from their page. Over HTTP, without JavaScript, as a browser
 * without scripts would do it; the browser tests walk the same pages.
 */
describe('destructive actions ask first; outgoing hooks disable, re-enable and delete', () => {
  let web: WebHarness;
  let producer: Producer;
  let box: SecretBox;

  beforeAll(async () => {
    web = await startWeb();
    producer = createProducer({ connection: web.ctx.redis, prefix: web.ctx.config.REDIS_PREFIX });
    box = new SecretBox(web.ctx.config.APP_SECRET);
  });
  afterAll(async () => {
    await producer?.close();
    await web?.close();
  });

  async function seated() {
    const workspace = await createWorkspace(web.ctx.db, { name: 'Acme Support' });
    const admin = await createMember(web.ctx.db, workspace, { role: 'admin' });
    const member = await createMember(web.ctx.db, workspace, { role: 'member' });
    const room = await createRoom(web.ctx.db, workspace, {
      members: [admin, member],
      name: 'deploys',
    });
    const client = new FormClient(web.url);
    await client.signIn(admin.user.email, admin.user.password);
    const base = `/w/${workspace.id}/${workspace.slug}`;
    const tab = `${base}/rooms/${room.id}/settings/webhooks`;
    return { workspace, admin, member, room, client, base, tab };
  }

  /** The confirmation page: the question, a POST form to `action` with the CSRF token, Cancel. */
  function expectQuestion(text: string, question: string, action: string, cancel: string): void {
    expect(text).toContain(`<h1>${question}</h1>`);
    expect(text).toMatch(new RegExp(`<form method="post" action="${action}"`));
    expect(text).toContain('name="_csrf"');
    expect(text).toContain(`<a class="button secondary" href="${cancel}">Cancel</a>`);
  }

  it('disables a hook by hand, holding what it is owed; re-enabling releases it in order', async () => {
    const { client, tab, room, workspace, admin } = await seated();
    const { hook } = await createOutgoingHook(web.ctx.db, box, {
      workspaceId: workspace.id,
      roomId: room.id,
      targetUrl: 'https://93.184.216.34/x',
      createdBy: admin.id,
    });
    const messages = [
      await createMessage(web.ctx.db, room, { author_kind: 'member' }),
      await createMessage(web.ctx.db, room, { author_kind: 'member' }),
    ];
    const nextTry = new Date(Date.now() + 10 * 60_000);
    for (const [i, message] of messages.entries()) {
      await web.ctx.db
        .insertInto('webhook_deliveries')
        .values({
          id: `dlv_01jd000000000000000000000${i}`,
          hook_id: hook.id,
          message_id: message.id,
          event: 'message_created',
          body: '{}',
          status: 'pending',
          attempts: 1,
          next_attempt_at: nextTry,
        })
        .execute();
    }
    const page = `${tab}/outgoing/${hook.id}`;
    const before = await client.get(page);
    // "next try" is the real time: relative and exact, never a placeholder.
    expect(before.text).toMatch(
      /next try <time datetime="[^"]+" title="[^"]+">in (9|10) minutes<\/time>/,
    );
    expect(before.text).toContain(nextTry.toISOString());
    expect(before.text).toContain('>Disable<');

    expect((await client.post(`${page}/disable`, {}, { csrfFrom: page })).status).toBe(303);
    const disabled = await web.ctx.db
      .selectFrom('outgoing_webhooks')
      .selectAll()
      .where('id', '=', hook.id)
      .executeTakeFirstOrThrow();
    expect(disabled.state).toBe('disabled');
    expect(disabled.disabled_reason).toBe(`Disabled by ${admin.user.name}.`);
    const held = await web.ctx.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'next_attempt_at'])
      .where('hook_id', '=', hook.id)
      .orderBy('id')
      .execute();
    expect(held).toEqual([
      { status: 'held', next_attempt_at: null },
      { status: 'held', next_attempt_at: null },
    ]);
    const shown = await client.get(page);
    expect(shown.text).toContain('Re-enable');
    expect(shown.text).toContain(`Disabled by ${admin.user.name}.`);
    expect(shown.text.match(/held until the hook is re-enabled/g)).toHaveLength(2);
    // Disabling twice changes nothing.
    await client.post(`${page}/disable`, {}, { csrfFrom: page });

    expect((await client.post(`${page}/enable`, {}, { csrfFrom: page })).status).toBe(303);
    const released = await web.ctx.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'attempts'])
      .where('hook_id', '=', hook.id)
      .execute();
    expect(released).toEqual([
      { status: 'pending', attempts: 0 },
      { status: 'pending', attempts: 0 },
    ]);
    const drains = await producer.queue('webhook-drain').getJobs(['waiting', 'delayed']);
    expect(drains.map((j) => j.data)).toContainEqual({ hookId: hook.id });
  });

  it('asks before deleting a hook, then deletes it with its log', async () => {
    const { client, tab, room, workspace, admin } = await seated();
    const { hook } = await createOutgoingHook(web.ctx.db, box, {
      workspaceId: workspace.id,
      roomId: room.id,
      targetUrl: 'https://93.184.216.34/hooks/<b>x</b>',
      createdBy: admin.id,
    });
    const page = `${tab}/outgoing/${hook.id}`;
    expect((await client.get(page)).text).toContain(`href="${page}/delete"`);
    const question = await client.get(`${page}/delete`);
    expect(question.status).toBe(200);
    expectQuestion(
      question.text,
      'Delete the hook to https://93.184.216.34/hooks/&lt;b&gt;x&lt;/b&gt;?',
      `${page}/delete`,
      page,
    );
    // Asking changed nothing.
    expect(
      await web.ctx.db
        .selectFrom('outgoing_webhooks')
        .select('id')
        .where('id', '=', hook.id)
        .execute(),
    ).toHaveLength(1);

    expect((await client.post(`${page}/delete`, { _csrf: '' })).status).toBe(403);
    const deleted = await client.post(`${page}/delete`, {}, { csrfFrom: `${page}/delete` });
    expect(deleted.status).toBe(303);
    expect(deleted.location).toBe(tab);
    expect(
      await web.ctx.db
        .selectFrom('outgoing_webhooks')
        .select('id')
        .where('id', '=', hook.id)
        .execute(),
    ).toHaveLength(0);
    expect((await client.get(page)).status).toBe(404);
    expect((await client.get(`${page}/delete`)).status).toBe(404);
  });

  it('asks before deleting an incoming key', async () => {
    const { client, tab, room, workspace, admin } = await seated();
    const { webhook } = await createIncomingKey(web.ctx.db, box, {
      workspaceId: workspace.id,
      roomId: room.id,
      name: 'Deploy bot',
      createdBy: admin.id,
    });
    const keyPage = `${tab}/incoming/${webhook.id}`;
    expect((await client.get(keyPage)).text).toContain(`href="${keyPage}/delete"`);
    const question = await client.get(`${keyPage}/delete`);
    expectQuestion(
      question.text,
      'Delete the key &quot;Deploy bot&quot;?',
      `${keyPage}/delete`,
      keyPage,
    );
    const deleted = await client.post(`${keyPage}/delete`, {}, { csrfFrom: `${keyPage}/delete` });
    expect(deleted.location).toBe(tab);
    const row = await web.ctx.db
      .selectFrom('incoming_webhooks')
      .select('deleted_at')
      .where('id', '=', webhook.id)
      .executeTakeFirstOrThrow();
    expect(row.deleted_at).not.toBeNull();
  });

  it('asks before rotating an incoming key, which breaks every sender too (#28)', async () => {
    const { client, tab, room, workspace, admin } = await seated();
    const { webhook } = await createIncomingKey(web.ctx.db, box, {
      workspaceId: workspace.id,
      roomId: room.id,
      name: 'Deploy bot',
      createdBy: admin.id,
    });
    const keyPage = `${tab}/incoming/${webhook.id}`;
    const page = (await client.get(keyPage)).text;
    // A link to the question, not a form that rotates at once.
    expect(page).toContain(`href="${keyPage}/rotate"`);
    expect(page).not.toContain(`action="${keyPage}/rotate"`);
    const question = await client.get(`${keyPage}/rotate`);
    expectQuestion(
      question.text,
      'Rotate the key &quot;Deploy bot&quot;?',
      `${keyPage}/rotate`,
      keyPage,
    );
    const unchanged = await web.ctx.db
      .selectFrom('incoming_webhooks')
      .select(['key_hash', 'rotated_at'])
      .where('id', '=', webhook.id)
      .executeTakeFirstOrThrow();
    expect(unchanged.key_hash).toBe(webhook.key_hash);
    const rotated = await client.post(`${keyPage}/rotate`, {}, { csrfFrom: `${keyPage}/rotate` });
    expect(rotated.location).toBe(keyPage);
    const row = await web.ctx.db
      .selectFrom('incoming_webhooks')
      .select('key_hash')
      .where('id', '=', webhook.id)
      .executeTakeFirstOrThrow();
    expect(row.key_hash).not.toBe(webhook.key_hash);
  });

  it('asks before leaving a room, with Cancel back where the person came from', async () => {
    const { client, room, base } = await seated();
    const roomPage = `${base}/rooms/${room.id}`;
    expect((await client.get(roomPage)).text).toContain(`href="${roomPage}/leave"`);
    expect((await client.get(`${base}/rooms`)).text).toContain(
      `href="${roomPage}/leave?from=rooms"`,
    );
    expectQuestion(
      (await client.get(`${roomPage}/leave`)).text,
      'Leave #deploys?',
      `${roomPage}/leave`,
      roomPage,
    );
    expect((await client.get(`${roomPage}/leave?from=rooms`)).text).toContain(
      `href="${base}/rooms">Cancel</a>`,
    );
    const left = await client.post(`${roomPage}/leave`, {}, { csrfFrom: `${roomPage}/leave` });
    expect(left.location).toBe(`${base}/rooms`);
    // Not in the room any more: nothing to ask, back to the room's page (its join offer).
    const again = await client.get(`${roomPage}/leave`);
    expect(again.status).toBe(302);
    expect(again.location).toBe(roomPage);
  });

  it('asks before removing a member or leaving the workspace; members may not remove others', async () => {
    const { client, member, admin, base } = await seated();
    const members = `${base}/members`;
    expect((await client.get(members)).text).toContain(`href="${members}/${member.id}/remove"`);
    expectQuestion(
      (await client.get(`${members}/${member.id}/remove`)).text,
      `Remove ${member.user.name} from Acme Support?`,
      `${members}/${member.id}/remove`,
      members,
    );
    expectQuestion(
      (await client.get(`${members}/${admin.id}/remove`)).text,
      'Leave Acme Support?',
      `${members}/${admin.id}/remove`,
      members,
    );
    expect((await client.get(`${members}/mem_01jd9999999999999999999999/remove`)).status).toBe(404);
    expect((await client.get(`${members}/nonsense/remove`)).status).toBe(404);

    const memberClient = new FormClient(web.url);
    await memberClient.signIn(member.user.email, member.user.password);
    expect((await memberClient.get(`${members}/${admin.id}/remove`)).status).toBe(403);

    const removed = await client.post(
      `${members}/${member.id}/remove`,
      {},
      { csrfFrom: `${members}/${member.id}/remove` },
    );
    expect(removed.location).toBe(members);
    expect((await memberClient.get(members)).status).toBe(404);
  });
});
