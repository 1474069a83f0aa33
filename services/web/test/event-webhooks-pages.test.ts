import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '@ferry/core';
import { createProducer, type Producer } from '@ferry/queues';
import { createRoom } from '@ferry/testing';
import { fileFeedback } from '@ferry/workspace';
import { signedInSeat, startWeb, type WebHarness } from './harness.js';

/**
 * Settings → Event webhooks over HTTP (issue 44), with ALLOW_PRIVATE_WEBHOOK_TARGETS off (the
 * default): the add form (types, filters, description), the secret, rotation with an overlap,
 * disable and enable, recover, Send test event and Send again; and the refusals, each a form error
 * on the page (303 back with what was typed), never a 500 and never markup rendered as markup.
 * Sending itself is webhooks-out's (services/all/test/event-webhooks*.test.ts); here we check the
 * rows written and the jobs asked for.
 */
describe('event webhook pages', () => {
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

  async function admin() {
    const seated = await signedInSeat(web, 'admin');
    const list = `${seated.base}/settings/event-webhooks`;
    return { ...seated, list };
  }

  const endpointRow = (hookId: string) =>
    web.ctx.db
      .selectFrom('event_endpoints as e')
      .innerJoin('outgoing_webhooks as h', 'h.id', 'e.hook_id')
      .selectAll()
      .where('e.hook_id', '=', hookId)
      .executeTakeFirstOrThrow();

  const valid = {
    url: 'https://93.184.216.34/ferry-events',
    description: 'Incident tool',
    event_types: ['error.group.created', 'error.group.regressed'],
    environments: 'production, staging',
    max_per_second: '10',
  };

  it('adds an endpoint through the form: types, filters, description, rate', async () => {
    const { workspace, client, list } = await admin();
    const room = await createRoom(web.ctx.db, workspace, { name: 'deploys' });
    const created = await client.post(
      list,
      { ...valid, event_types: [...valid.event_types, 'message.created'], room_ids: [room.id] },
      { csrfFrom: list },
    );
    expect(created.status).toBe(303);
    expect(created.location).toMatch(new RegExp(`^${list}/endpoints/owh_[0-9a-z]{26}$`));
    const hookId = created.location!.split('/').pop()!;
    const row = await endpointRow(hookId);
    expect(row).toMatchObject({
      target_url: valid.url,
      owner: 'event_endpoint',
      description: 'Incident tool',
      event_types: [...valid.event_types, 'message.created'],
      environments: ['production', 'staging'],
      room_ids: [room.id],
      max_per_second: 10,
      state: 'enabled',
    });
    const page = await client.follow(created);
    expect(page.status).toBe(200);
    expect(page.text).toContain('The endpoint is ready');
    expect(page.text).toContain(valid.url);
    const listed = await client.get(list);
    expect(listed.text).toContain('Incident tool');
    expect(listed.text).toContain('error.group.created, error.group.regressed, message.created');
  });

  it('reveals the secret only on POST, rotates with an overlap, disables and enables', async () => {
    const { client, list } = await admin();
    const created = await client.post(list, valid, { csrfFrom: list });
    const here = created.location!;
    const hookId = here.split('/').pop()!;
    const secret = box.decrypt((await endpointRow(hookId)).secret_sealed);
    expect((await client.get(here)).text).not.toContain(secret);
    const revealed = await client.post(`${here}/reveal`, {}, { csrfFrom: here });
    expect(revealed.status).toBe(200);
    expect(revealed.text).toContain(secret);

    const rotated = await client.post(`${here}/rotate`, { overlap_hours: '6' }, { csrfFrom: here });
    expect(rotated.status).toBe(303);
    const row = await endpointRow(hookId);
    expect(box.decrypt(row.previous_secret_sealed!)).toBe(secret);
    expect(box.decrypt(row.secret_sealed)).not.toBe(secret);
    const overlap = row.previous_secret_expires_at!.getTime() - Date.now();
    expect(overlap).toBeGreaterThan(5.9 * 3_600_000);
    expect(overlap).toBeLessThanOrEqual(6 * 3_600_000);
    const after = await client.follow(rotated);
    expect(after.text).toContain('keeps signing beside it for 6 h');
    expect(after.text).toContain('The previous secret signs too until');
    // An overlap beyond a week, or not a number: a form error, nothing rotated.
    for (const bad of ['999', 'soon', '-1']) {
      const refused = await client.post(
        `${here}/rotate`,
        { overlap_hours: bad },
        { csrfFrom: here },
      );
      expect(refused.status).toBe(303);
      expect((await client.follow(refused)).text).toContain('aria-invalid="true"');
    }
    expect(box.decrypt((await endpointRow(hookId)).secret_sealed)).toBe(
      box.decrypt(row.secret_sealed),
    );

    const disabled = await client.post(`${here}/disable`, {}, { csrfFrom: here });
    expect(disabled.status).toBe(303);
    expect((await endpointRow(hookId)).state).toBe('disabled');
    expect((await client.follow(disabled)).text).toContain('events are held');
    const enabled = await client.post(`${here}/enable`, {}, { csrfFrom: here });
    expect(enabled.status).toBe(303);
    expect((await endpointRow(hookId)).state).toBe('enabled');
    const drains = await producer.queue('webhook-drain').getJobs(['waiting', 'delayed']);
    expect(drains.map((job) => job.data)).toContainEqual({ hookId });
  });

  it('recovers failed deliveries since a time, sends a test event and sends a delivery again', async () => {
    const { workspace, client, list } = await admin();
    const created = await client.post(
      list,
      { ...valid, event_types: ['feedback.created'] },
      { csrfFrom: list },
    );
    const here = created.location!;
    const hookId = here.split('/').pop()!;
    await fileFeedback(web.ctx.db, workspace.id, { note: 'recover me', title: null });
    const owed = await web.ctx.db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', attempts: 3, next_attempt_at: null })
      .where('hook_id', '=', hookId)
      .returningAll()
      .executeTakeFirstOrThrow();

    const since = new Date(Date.now() - 3_600_000).toISOString().slice(0, 16);
    const recovered = await client.post(`${here}/recover`, { since }, { csrfFrom: here });
    expect(recovered.status).toBe(303);
    expect((await client.follow(recovered)).text).toContain('1 failed deliveries go out again');
    const back = await web.ctx.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', owed.id)
      .executeTakeFirstOrThrow();
    expect(back.status).toBe('pending');
    const refused = await client.post(
      `${here}/recover`,
      { since: 'yesterday' },
      { csrfFrom: here },
    );
    expect((await client.follow(refused)).text).toContain('Enter a date and time.');

    const page = await client.get(here);
    expect(page.text).toContain('Send test event');
    expect(page.text).toMatch(/data-testid="delivery"[\s\S]*feedback\.created[\s\S]*Send again/);
    const tested = await client.post(`${here}/test`, {}, { csrfFrom: here });
    expect(tested.status).toBe(303);
    expect(tested.location).toBe(here);
    expect((await client.follow(tested)).text).toContain('webhook.test');
    const again = await client.post(`${here}/deliveries/${owed.id}/resend`, {}, { csrfFrom: here });
    expect(again.status).toBe(303);
    const sends = await producer.queue('webhook-send-once').getJobs(['waiting', 'delayed']);
    expect(sends.map((job) => job.data)).toEqual(
      expect.arrayContaining([{ hookId }, { hookId, deliveryId: owed.id }]),
    );
  });

  it.each([
    [{ url: 'not a url' }, 'url', /full URL/],
    [{ url: 'javascript:alert(1)' }, 'url', /http:\/\/ and https:\/\//],
    [{ url: 'http://127.0.0.1:9000/hook' }, 'url', /loopback/],
    [{ url: 'http://10.0.0.5/hook' }, 'url', /private/],
    [{ url: 'http://169.254.169.254/latest/meta-data/' }, 'url', /metadata/],
    [{ event_types: [] }, 'event_types', /Pick at least one event type/],
    [{ event_types: ['error.group.exploded'] }, 'event_types', /from the catalog/],
    [{ event_types: ['message.created'] }, 'room_ids', /needs the rooms/],
    [{ description: '<img src=x onerror=alert(1)>' }, 'description', /cannot contain &lt;/],
    [{ description: 'javascript:alert(1)' }, 'description', /cannot contain javascript:/],
    [{ description: 'Click JavaScript :alert(1)' }, 'description', /cannot contain javascript:/],
    [{ environments: '<script>alert(1)</script>' }, 'environments', /letters, digits/],
    [{ environments: 'javascript:alert(1)' }, 'environments', /letters, digits/],
    [{ max_per_second: '<b>5</b>' }, 'max_per_second', /whole number/],
    [{ max_per_second: 'javascript:alert(1)' }, 'max_per_second', /whole number/],
  ])('refuses %j with a form error on %s, escaped', async (change, name, message) => {
    const { client, list, workspace } = await admin();
    const posted = { ...valid, ...change } as Record<string, string | string[]>;
    const res = await client.post(list, posted, { csrfFrom: list });
    expect(res.status).toBe(303);
    expect(res.location).toBe(list);
    const page = await client.follow(res);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(message);
    // A text field is marked invalid; the event types' fieldset shows its error under the boxes.
    if (!['event_types', 'room_ids'].includes(name))
      expect(page.text).toContain('aria-invalid="true"');
    // What was typed comes back, as text: never as markup.
    expect(page.text).not.toMatch(/<img src=x|<script>alert|<b>5<\/b>/);
    expect(page.text).not.toMatch(/href="javascript:/i);
    const rows = await web.ctx.db
      .selectFrom('outgoing_webhooks')
      .select('id')
      .where('owner', '=', 'event_endpoint')
      .where('workspace_id', '=', workspace.id)
      .execute();
    expect({ name, rows: rows.length }).toEqual({ name, rows: 0 });
  });

  it('refuses the same hostile values when editing an endpoint, and through the API with a 422', async () => {
    const { client, list, workspace } = await admin();
    const created = await client.post(list, valid, { csrfFrom: list });
    const here = created.location!;
    const hookId = here.split('/').pop()!;
    const edit = await client.post(
      here,
      { ...valid, description: '"><script>alert(1)</script>' },
      { csrfFrom: here },
    );
    expect(edit.status).toBe(303);
    const page = await client.follow(edit);
    expect(page.text).toContain('cannot contain &lt;');
    expect(page.text).not.toContain('<script>alert(1)</script>');
    expect((await endpointRow(hookId)).description).toBe('Incident tool');

    const { createApiToken } = await import('@ferry/testing');
    const token = await createApiToken(web.ctx.db, workspace, { scopes: ['tenant:write'] });
    for (const body of [
      { ...valid, event_types: valid.event_types, description: '<svg onload=alert(1)>' },
      { ...valid, event_types: valid.event_types, description: 'javascript:alert(1)' },
      { ...valid, event_types: valid.event_types, url: 'javascript:alert(1)' },
      { ...valid, event_types: [] },
    ]) {
      const res = await fetch(`${web.url}/api/v1/event-webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token.raw}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, environments: ['production'], max_per_second: 5 }),
      });
      expect(res.status).toBe(422);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
        'validation_failed',
      );
    }
  });
});
