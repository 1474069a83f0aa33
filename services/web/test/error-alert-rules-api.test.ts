import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Room, Workspace } from '@ferry/db';
import {
  createApiToken,
  createMember,
  createRoom,
  createWorkspace,
  FormClient,
} from '@ferry/testing';
import { signedInSeat, startWeb, type WebHarness } from './harness.js';

interface ErrorJson {
  error: { code: string; message: string; fields?: Record<string, string> };
}

interface RuleJson {
  id: string;
  name: string;
  [field: string]: unknown;
}

/**
 * /api/v1/error-alerts/rules (issue 43 part 7): several rules, each read, replaced and deleted by
 * id; /api/v1/error-alerts keeps answering for the first rule exactly as before.
 */
describe('error alert rules API', () => {
  let web: WebHarness;
  let workspace: Workspace;
  let room: Room;
  let reader: string;
  let writer: string;

  beforeAll(async () => {
    web = await startWeb();
    workspace = await createWorkspace(web.ctx.db);
    const admin = await createMember(web.ctx.db, workspace, { role: 'admin' });
    room = await createRoom(web.ctx.db, workspace, { members: [admin], name: 'alerts' });
    reader = (await createApiToken(web.ctx.db, workspace, { scopes: ['tenant:read'] })).raw;
    writer = (await createApiToken(web.ctx.db, workspace, { scopes: ['tenant:write'] })).raw;
  });
  afterAll(async () => {
    await web?.close();
  });

  const call = (method: string, path: string, token: string | null, body?: unknown) =>
    fetch(`${web.url}/api/v1/error-alerts${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it('adds, lists, reads, replaces and deletes rules; the old endpoint speaks for the first', async () => {
    expect((await call('POST', '/rules', reader, { name: 'x' })).status).toBe(403);
    expect((await call('GET', '/rules', null)).status).toBe(401);

    const first = await call('POST', '/rules', writer, {
      name: 'Production, new',
      room_id: room.id,
      new_group: true,
      environments: ['production'],
      tags: ['feature=checkout-*'],
    });
    expect(first.status).toBe(201);
    const firstJson = (await first.json()) as RuleJson;
    expect(firstJson).toMatchObject({
      id: expect.stringMatching(/^alr_/) as string,
      name: 'Production, new',
      room_id: room.id,
      new_group: true,
      regression: false,
      frequency: null,
      url: null,
      environments: ['production'],
      sources: null,
      levels: null,
      releases: null,
      tags: ['feature=checkout-*'],
      hand_to_agent: false,
      signing_secret: null,
    });
    const second = await call('POST', '/rules', writer, {
      name: 'Agent takes regressions',
      regression: true,
      hand_to_agent: true,
      levels: ['Fatal'],
    });
    expect(second.status).toBe(201);
    const secondJson = (await second.json()) as RuleJson;
    expect(secondJson.levels).toEqual(['fatal']);

    const list = (await (await call('GET', '/rules', reader)).json()) as { rules: RuleJson[] };
    expect(list.rules.map((rule) => rule.name)).toEqual([
      'Production, new',
      'Agent takes regressions',
    ]);

    // The old PUT edits the first rule's old fields and keeps what it does not know of.
    const legacy = await call('PUT', '', writer, { room_id: room.id, regression: true });
    expect(legacy.status).toBe(200);
    const legacyJson = (await legacy.json()) as Record<string, unknown>;
    expect(Object.keys(legacyJson).sort()).toEqual(
      [
        'room_id',
        'new_group',
        'regression',
        'frequency',
        'url',
        'environments',
        'url_state',
        'updated_at',
        'signing_secret',
      ].sort(),
    );
    const one = (await (await call('GET', `/rules/${firstJson.id}`, reader)).json()) as RuleJson;
    expect(one).toMatchObject({
      name: 'Production, new',
      new_group: false,
      regression: true,
      environments: null,
      tags: ['feature=checkout-*'],
    });

    const replaced = await call('PUT', `/rules/${secondJson.id}`, writer, {
      name: 'Agent takes everything new',
      new_group: true,
      hand_to_agent: true,
    });
    expect(replaced.status).toBe(200);
    expect(await replaced.json()).toMatchObject({ levels: null, new_group: true });

    expect((await call('DELETE', `/rules/${secondJson.id}`, reader)).status).toBe(403);
    expect((await call('DELETE', `/rules/${secondJson.id}`, writer)).status).toBe(204);
    expect((await call('GET', `/rules/${secondJson.id}`, reader)).status).toBe(404);
    expect((await call('DELETE', `/rules/${secondJson.id}`, writer)).status).toBe(404);
    expect((await call('PUT', '/rules/not-an-id', writer, {})).status).toBe(404);
  });

  it('answers 422 naming each bad field, and stores nothing', async () => {
    const before = (await (await call('GET', '/rules', reader)).json()) as { rules: unknown[] };
    const refused = await call('POST', '/rules', writer, {
      name: '',
      sources: ['cobol'],
      tags: ['no-equals-sign'],
      releases: [],
      hand_to_agent: 'yes',
    });
    expect(refused.status).toBe(422);
    const body = (await refused.json()) as ErrorJson;
    expect(body.error.code).toBe('validation_failed');
    expect(Object.keys(body.error.fields ?? {}).sort()).toEqual(
      ['hand_to_agent', 'name', 'releases', 'sources.0', 'tags.0'].sort(),
    );
    expect(body.error.fields?.['tags.0']).toContain('key=value');
    const after = (await (await call('GET', '/rules', reader)).json()) as { rules: unknown[] };
    expect(after.rules).toHaveLength(before.rules.length);
  });

  it('Settings > Error alerts: adds, edits (a refusal comes back to the rule with its error), deletes', async () => {
    const { workspace: ws, seat, client, base } = await signedInSeat(web, 'admin');
    const channel = await createRoom(web.ctx.db, ws, { name: 'oncall', members: [seat] });
    const list = `${base}/settings/error-alerts`;
    expect((await client.get(list)).text).toContain('No rules yet');

    const added = await client.post(
      list,
      { name: '<b>Checkout</b>', new_group: 'on', room_id: channel.id, tags: 'feature=checkout-*' },
      { csrfFrom: list },
    );
    expect(added.status).toBe(303);
    const listed = await client.follow(added);
    expect(listed.text).toContain('Alert rule added.');
    expect(listed.text).toContain('&lt;b&gt;Checkout&lt;/b&gt;');
    expect(listed.text).not.toContain('<b>Checkout</b>');
    expect(listed.text).toContain('tag feature=checkout-*');
    const rule = await web.ctx.db
      .selectFrom('error_alert_rules')
      .selectAll()
      .where('workspace_id', '=', ws.id)
      .executeTakeFirstOrThrow();
    expect(rule).toMatchObject({
      room_id: channel.id,
      new_group: true,
      tags: ['feature=checkout-*'],
    });
    const page = `${list}/rules/${rule.id}`;

    const refused = await client.post(
      page,
      { name: 'Checkout', new_group: 'on', sources: 'js', tags: 'feature' },
      { csrfFrom: page },
    );
    expect(refused.status).toBe(303);
    expect(refused.location).toContain(`/rules/${rule.id}`);
    const refusedPage = await client.follow(refused);
    expect(refusedPage.text).toContain('aria-describedby="f-tags-error"');
    expect(refusedPage.text).toContain('key=value');
    expect(refusedPage.text).toContain('value="feature"'); // kept as typed
    expect(refusedPage.text).toMatch(/value="js"\s+checked/);

    const saved = await client.post(
      page,
      { name: 'Checkout', regression: 'on', sources: 'js', levels: 'Fatal', hand_to_agent: 'on' },
      { csrfFrom: page },
    );
    expect(saved.status).toBe(303);
    expect((await client.follow(saved)).text).toContain('Alert rule saved.');
    expect(
      await web.ctx.db
        .selectFrom('error_alert_rules')
        .selectAll()
        .where('id', '=', rule.id)
        .executeTakeFirstOrThrow(),
    ).toMatchObject({
      name: 'Checkout',
      new_group: false,
      regression: true,
      room_id: null,
      sources: ['js'],
      levels: ['fatal'],
      tags: null,
      hand_to_agent: true,
    });

    // Delete asks first: the rule page links to a question whose button posts the delete.
    expect((await client.get(page)).text).toContain(`href="${page}/delete"`);
    const question = await client.get(`${page}/delete`);
    expect(question.status).toBe(200);
    expect(question.text).toContain('Delete the alert rule “Checkout”?');
    expect(question.text).toContain(`action="${page}/delete"`);
    const deleted = await client.post(`${page}/delete`, {}, { csrfFrom: `${page}/delete` });
    expect(deleted.status).toBe(303);
    expect((await client.follow(deleted)).text).toContain('Alert rule deleted.');
    const gone = await client.get(page);
    expect(gone.status).toBe(303);
    expect((await client.follow(gone)).text).toContain('No such alert rule');

    const member = await createMember(web.ctx.db, ws, { role: 'member' });
    const memberClient = new FormClient(web.url);
    await memberClient.signIn(member.user.email, member.user.password);
    expect((await memberClient.get(list)).status).toBe(403);
  });
});
