import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '@ferry/core';
import { createProducer, type Producer } from '@ferry/queues';
import { createMember, createMessage, createRoom, createWorkspace } from '@ferry/testing';
import { newId } from '@ferry/core';
import { createOutgoingHook, OUTGOING_TARGET_MAX } from '@ferry/workspace';
import { FormClient, startWeb, type WebHarness } from './harness.js';

/**
 * The outgoing-hook pages over HTTP, with ALLOW_PRIVATE_WEBHOOK_TARGETS off (the default): the
 * create POST of the Webhooks tab with its SSRF refusals, and the hook page's actions. Sending is
 * webhooks-out's (its own tests); here we check the rows written and the jobs asked for.
 */
describe('outgoing webhook pages', () => {
  let web: WebHarness;
  let producer: Producer;
  let box: SecretBox;

  beforeAll(async () => {
    // No webhooks-out here: test events and re-sends wait only briefly for their attempts.
    web = await startWeb({ ALLOW_PRIVATE_WEBHOOK_TARGETS: 'false', WEBHOOK_TIMEOUT_MS: '100' });
    producer = createProducer({ connection: web.ctx.redis, prefix: web.ctx.config.REDIS_PREFIX });
    box = new SecretBox(web.ctx.config.APP_SECRET);
  });
  afterAll(async () => {
    await producer?.close();
    await web?.close();
  });

  async function seated(role: 'admin' | 'member' = 'admin') {
    const workspace = await createWorkspace(web.ctx.db);
    const seat = await createMember(web.ctx.db, workspace, { role });
    const room = await createRoom(web.ctx.db, workspace, { members: [seat], name: 'deploys' });
    const client = new FormClient(web.url);
    await client.signIn(seat.user.email, seat.user.password);
    const tab = `/w/${workspace.id}/${workspace.slug}/rooms/${room.id}/settings/webhooks`;
    return { workspace, seat, room, client, tab };
  }

  it.each([
    ['http://localhost:8080/hook', /resolves to (127\.0\.0\.1|::1), a loopback address/],
    ['http://127.0.0.1:9000/hook', /loopback/],
    ['http://10.0.0.5/hook', /private/],
    ['http://100.64.1.1/hook', /carrierGradeNat/],
    ['http://169.254.169.254/latest/meta-data/', /metadata/],
    ['http://[fd00:ec2::254]/', /metadata/],
    ['http://[::1]:8080/', /loopback/],
    ['ftp://example.com/hook', /Only http:\/\/ and https:\/\//],
    ['not a url', /full URL/],
    [`https://example.com/${'a'.repeat(OUTGOING_TARGET_MAX)}`, /At most 2,000 characters/],
  ])('refuses %s when saved, with the error inline in the form', async (target, message) => {
    const { client, tab } = await seated();
    const res = await client.post(`${tab}/outgoing`, { target_url: target }, { csrfFrom: tab });
    expect(res.status).toBe(303);
    const resPage = await client.follow(res);
    expect(resPage.text).toMatch(message);
    expect(resPage.text).toContain('name="target_url"');
    expect(resPage.text).toContain('aria-invalid="true"');
    const hooks = await web.ctx.db
      .selectFrom('outgoing_webhooks')
      .select('id')
      .where('target_url', '=', target)
      .execute();
    expect(hooks).toHaveLength(0);
  });

  it('creates a hook with a sealed secret, masked until revealed, and the page documents it', async () => {
    const { client, tab, room } = await seated();
    const created = await client.post(
      `${tab}/outgoing`,
      { target_url: 'https://93.184.216.34/hooks/ferry' },
      { csrfFrom: tab },
    );
    expect(created.status).toBe(303);
    expect(created.location).toMatch(new RegExp(`^${tab}/outgoing/owh_[0-9a-z]{26}$`));
    const hook = await web.ctx.db
      .selectFrom('outgoing_webhooks')
      .selectAll()
      .where('room_id', '=', room.id)
      .executeTakeFirstOrThrow();
    const secret = box.decrypt(hook.secret_sealed);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(hook.secret_sealed).not.toContain(secret.slice(6));

    const page = await client.get(created.location!);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain(secret);
    expect(page.text).toContain('https://93.184.216.34/hooks/ferry');
    expect(page.text).toMatch(/data-testid="consecutive-failures">0</);
    expect(page.text).toContain('Rack::Utils.secure_compare');
    expect(page.text).toContain('OpenSSL::HMAC.hexdigest(&#39;SHA256&#39;, SECRET, raw_body)');
    expect(page.text).toContain('timingSafeEqual');
    expect(page.text).toContain('&quot;event&quot;: &quot;message_created&quot;');
    expect(page.text).toContain('No deliveries yet');

    const revealed = await client.post(
      `${created.location!}/reveal`,
      {},
      { csrfFrom: created.location! },
    );
    expect(revealed.status).toBe(200);
    expect(revealed.text).toContain(secret);
    // The secret's page must not be cached (a Back button would bring it back).
    const raw = await fetch(web.url + created.location!, { redirect: 'manual' });
    expect(raw.status).toBe(302);
  });

  it('rotates the secret, keeping the previous one for 24 h', async () => {
    const { client, tab, room, workspace, seat } = await seated();
    const { hook, secret } = await createOutgoingHook(web.ctx.db, box, {
      workspaceId: workspace.id,
      roomId: room.id,
      targetUrl: 'https://93.184.216.34/x',
      createdBy: seat.id,
    });
    const page = `${tab}/outgoing/${hook.id}`;
    const rotated = await client.post(`${page}/rotate`, {}, { csrfFrom: page });
    expect(rotated.status).toBe(303);
    const row = await web.ctx.db
      .selectFrom('outgoing_webhooks')
      .selectAll()
      .where('id', '=', hook.id)
      .executeTakeFirstOrThrow();
    expect(box.decrypt(row.previous_secret_sealed!)).toBe(secret);
    expect(box.decrypt(row.secret_sealed)).not.toBe(secret);
    const overlap = row.previous_secret_expires_at!.getTime() - Date.now();
    expect(overlap).toBeGreaterThan(23.9 * 3_600_000);
    expect(overlap).toBeLessThanOrEqual(24 * 3_600_000);
    expect((await client.get(page)).text).toContain('the previous secret also signs until');
  });

  it('re-enables a disabled hook, releasing held deliveries, and asks for test events and re-sends', async () => {
    const { client, tab, room, workspace, seat } = await seated();
    const { hook } = await createOutgoingHook(web.ctx.db, box, {
      workspaceId: workspace.id,
      roomId: room.id,
      targetUrl: 'https://93.184.216.34/x',
      createdBy: seat.id,
    });
    const message = await createMessage(web.ctx.db, room, { author_kind: 'member' });
    await web.ctx.db
      .updateTable('outgoing_webhooks')
      .set({
        state: 'disabled',
        consecutive_failures: 20,
        disabled_reason: '20 consecutive delivery failures.',
      })
      .where('id', '=', hook.id)
      .execute();
    const delivery = await web.ctx.db
      .insertInto('webhook_deliveries')
      .values({
        id: 'dlv_01jd0000000000000000000000',
        hook_id: hook.id,
        message_id: message.id,
        event: 'message_created',
        body: '{}',
        status: 'held',
        attempts: 4,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await web.ctx.db
      .insertInto('webhook_attempts')
      .values({
        id: 'att_01jd0000000000000000000000',
        delivery_id: delivery.id,
        status_code: 503,
        duration_ms: 42,
        response_excerpt: '<h1>Service Unavailable</h1>',
        error: 'HTTP 503',
      })
      .execute();
    const page = `${tab}/outgoing/${hook.id}`;
    const before = await client.get(page);
    expect(before.text).toContain('Re-enable');
    expect(before.text).toContain('20 consecutive delivery failures.');
    expect(before.text).toMatch(/data-testid="consecutive-failures">20</);
    expect(before.text).toContain('&lt;h1&gt;Service Unavailable&lt;/h1&gt;');
    expect(before.text).toContain('42 ms');
    expect(before.text).toContain('Send again');

    expect((await client.post(`${page}/enable`, {}, { csrfFrom: page })).status).toBe(303);
    const row = await web.ctx.db
      .selectFrom('outgoing_webhooks')
      .selectAll()
      .where('id', '=', hook.id)
      .executeTakeFirstOrThrow();
    expect(row.state).toBe('enabled');
    expect(row.consecutive_failures).toBe(0);
    const released = await web.ctx.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', delivery.id)
      .executeTakeFirstOrThrow();
    expect(released.status).toBe('pending');
    expect(released.attempts).toBe(0);
    const drains = await producer.queue('webhook-drain').getJobs(['waiting', 'delayed']);
    expect(drains.map((j) => j.data)).toContainEqual({ hookId: hook.id });

    expect((await client.post(`${page}/test`, {}, { csrfFrom: page })).status).toBe(303);
    expect(
      (await client.post(`${page}/deliveries/${delivery.id}/resend`, {}, { csrfFrom: page }))
        .status,
    ).toBe(303);
    const sends = await producer.queue('webhook-send-once').getJobs(['waiting']);
    expect(sends.map((j) => j.data)).toEqual(
      expect.arrayContaining([{ hookId: hook.id }, { hookId: hook.id, deliveryId: delivery.id }]),
    );
    const unknown = await client.post(
      `${page}/deliveries/dlv_01jd9999999999999999999999/resend`,
      {},
      { csrfFrom: page },
    );
    expect(unknown.status).toBe(404);
  });

  it('is for admins only, checks CSRF, and hides hooks of other rooms', async () => {
    const admin = await seated('admin');
    const { hook } = await createOutgoingHook(web.ctx.db, box, {
      workspaceId: admin.workspace.id,
      roomId: admin.room.id,
      targetUrl: 'https://93.184.216.34/x',
      createdBy: admin.seat.id,
    });
    const member = await createMember(web.ctx.db, admin.workspace, { role: 'member' });
    const memberClient = new FormClient(web.url);
    await memberClient.signIn(member.user.email, member.user.password);
    const page = `${admin.tab}/outgoing/${hook.id}`;
    expect((await memberClient.get(page)).status).toBe(403);
    const refused = await memberClient.post(
      `${admin.tab}/outgoing`,
      { target_url: 'https://93.184.216.34/y' },
      { csrfFrom: `/w/${admin.workspace.id}/${admin.workspace.slug}` },
    );
    expect(refused.status).toBe(403);

    const noCsrf = await admin.client.post(`${page}/rotate`, { _csrf: '' });
    expect(noCsrf.status).toBe(403);

    const otherRoom = await createRoom(web.ctx.db, admin.workspace, { members: [admin.seat] });
    const elsewhere = `/w/${admin.workspace.id}/${admin.workspace.slug}/rooms/${otherRoom.id}/settings/webhooks/outgoing/${hook.id}`;
    expect((await admin.client.get(elsewhere)).status).toBe(404);
  });
  it('pages the delivery log, newest first, each with its message excerpt (#28)', async () => {
    const { client, tab, workspace, room, seat } = await seated();
    const { hook } = await createOutgoingHook(
      web.ctx.db,
      new SecretBox(web.ctx.config.APP_SECRET),
      {
        workspaceId: workspace.id,
        roomId: room.id,
        targetUrl: 'https://93.184.216.34/hook',
        createdBy: seat.id,
      },
    );
    const start = Date.parse('2026-11-20T10:00:00Z');
    for (let i = 0; i < 23; i++) {
      const message = await createMessage(web.ctx.db, room, {
        author_kind: 'member',
        author_member_id: seat.id,
        display_name: 'Grace',
        body: `Deploy number ${i} <b>done</b> ${'and more words '.repeat(i === 22 ? 20 : 0)}`,
      });
      await web.ctx.db
        .insertInto('webhook_deliveries')
        .values({
          id: newId('webhookDelivery'),
          hook_id: hook.id,
          message_id: message.id,
          event: 'message_created',
          body: '{}',
          status: 'succeeded',
          attempts: 1,
          created_at: new Date(start + i * 60_000),
        })
        .execute();
    }
    const page = `${tab}/outgoing/${hook.id}`;
    const first = (await client.get(page)).text;
    expect(first.match(/data-testid="delivery"/g)).toHaveLength(10);
    expect(first).toContain('23 deliveries, newest first');
    expect(first).toContain('Page 1 of 3');
    // The newest first, its message's start shown (escaped, cut with an ellipsis).
    expect(first.indexOf('Deploy number 22')).toBeLessThan(first.indexOf('Deploy number 21'));
    expect(first).toContain('Deploy number 22 &lt;b&gt;done&lt;/b&gt;');
    expect(first).toMatch(/and more words …|and more …|…<\/span>/);
    expect(first).not.toContain('Deploy number 12 ');
    expect(first).toContain(`href="${page}?page=2"`);
    const last = (await client.get(`${page}?page=3`)).text;
    expect(last.match(/data-testid="delivery"/g)).toHaveLength(3);
    expect(last).toContain('Deploy number 0 ');
    const beyond = await client.get(`${page}?page=9`);
    expect(beyond.status).toBe(200);
    expect(beyond.text).not.toContain('Page 9 of');
    expect(beyond.text).toContain(`href="${page}?page=3"`);
  });
});
