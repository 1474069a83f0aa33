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

/**
 * GET/PUT /api/v1/error-alerts (issue 26): tenant:read reads, tenant:write saves, 401 without a
 * token, 403 with too small a scope, 422 naming the bad field. SSRF is on (the default) in this
 * harness, so a loopback or private URL is refused as it would be in production.
 */
describe('error alerts API', () => {
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

  const call = (method: 'GET' | 'PUT', token: string | null, body?: unknown) =>
    fetch(`${web.url}/api/v1/error-alerts`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  const valid = () => ({
    room_id: room.id,
    new_group: true,
    regression: true,
    frequency: { count: 50, minutes: 5 },
    url: null,
    environments: ['production', 'staging'],
  });

  it('answers 401 without a token and 403 for a read token on PUT', async () => {
    expect((await call('GET', null)).status).toBe(401);
    expect((await call('PUT', null, valid())).status).toBe(401);
    const forbidden = await call('PUT', reader, valid());
    expect(forbidden.status).toBe(403);
    const dispatch = (
      await createApiToken(web.ctx.db, workspace, { scopes: ['platform:dispatch'] })
    ).raw;
    expect((await call('GET', dispatch)).status).toBe(403);
  });

  it('saves with tenant:write and reads back with tenant:read', async () => {
    const saved = await call('PUT', writer, valid());
    expect(saved.status).toBe(200);
    const body = (await saved.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      room_id: room.id,
      new_group: true,
      regression: true,
      frequency: { count: 50, minutes: 5 },
      url: null,
      environments: ['production', 'staging'],
      signing_secret: null,
    });
    const read = await call('GET', reader);
    expect(read.status).toBe(200);
    const got = (await read.json()) as Record<string, unknown>;
    expect(got).toMatchObject({ room_id: room.id, frequency: { count: 50, minutes: 5 } });
    expect(got).not.toHaveProperty('signing_secret');
  });

  async function refused(body: unknown): Promise<Record<string, string>> {
    const res = await call('PUT', writer, body);
    expect(res.status).toBe(422);
    const json = (await res.json()) as ErrorJson;
    expect(json.error.code).toBe('validation_failed');
    return json.error.fields ?? {};
  }

  it('answers 422 naming the bad field, and changes nothing', async () => {
    const other = await createWorkspace(web.ctx.db);
    const foreignRoom = await createRoom(web.ctx.db, other, { name: 'theirs' });
    const dm = await createRoom(web.ctx.db, workspace, { kind: 'dm', name: 'dm' });
    expect(await refused({ ...valid(), room_id: foreignRoom.id })).toEqual({
      room_id: 'No such room in this workspace.',
    });
    expect(await refused({ ...valid(), room_id: 'room_nope' })).toHaveProperty('room_id');
    expect(Object.keys(await refused({ ...valid(), room_id: dm.id }))).toEqual(['room_id']);
    for (const url of [
      'http://127.0.0.1:9/hook',
      'http://localhost/hook',
      'http://10.1.2.3/hook',
      'http://[::1]/hook',
      'http://169.254.169.254/latest/meta-data',
    ]) {
      expect(Object.keys(await refused({ ...valid(), url }))).toEqual(['url']);
    }
    expect(Object.keys(await refused({ ...valid(), url: 'ftp://example.com/x' }))).toEqual(['url']);
    expect(Object.keys(await refused({ ...valid(), new_group: 'yes' }))).toEqual(['new_group']);
    expect(Object.keys(await refused({ ...valid(), frequency: { count: 0, minutes: 5 } }))).toEqual(
      ['frequency.count'],
    );
    expect(
      Object.keys(await refused({ ...valid(), frequency: { count: 10, minutes: 100_000 } })),
    ).toEqual(['frequency.minutes']);
    expect(Object.keys(await refused({ ...valid(), environments: [] }))).toEqual(['environments']);
    expect(Object.keys(await refused({ ...valid(), environments: ['x'.repeat(41)] }))).toEqual([
      'environments.0',
    ]);
    // Every bad field at once: the shape's, then the room and the URL together.
    expect(
      Object.keys(
        await refused({ ...valid(), new_group: 'yes', frequency: { count: 0, minutes: 0 } }),
      ).sort(),
    ).toEqual(['frequency.count', 'frequency.minutes', 'new_group']);
    expect(
      Object.keys(
        await refused({ ...valid(), room_id: 'room_nope', url: 'http://127.0.0.1:9/hook' }),
      ).sort(),
    ).toEqual(['room_id', 'url']);
    const read = (await (await call('GET', reader)).json()) as Record<string, unknown>;
    expect(read).toMatchObject({ room_id: room.id, url: null });
  });

  it('refuses a body that is not JSON with a client error, never a 500', async () => {
    const res = await fetch(`${web.url}/api/v1/error-alerts`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${writer}`, 'content-type': 'text/plain' },
      body: 'new_group=true',
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });

  it('Settings > Error alerts: an admin saves the form; a refused URL re-renders with its error; a member is refused', async () => {
    const { workspace: ws, seat, client, base } = await signedInSeat(web, 'admin');
    const channel = await createRoom(web.ctx.db, ws, { name: 'oncall', members: [seat] });
    const path = `${base}/settings/error-alerts`;
    const page = await client.get(path);
    expect(page.status).toBe(200);
    expect(page.text).toContain('#oncall');

    const refused = await client.post(
      path,
      { new_group: 'on', room_id: channel.id, url: 'http://127.0.0.1:9/hook', environments: '' },
      { csrfFrom: path },
    );
    expect(refused.status).toBe(303);
    const refusedPage = await client.follow(refused);
    expect(refusedPage.text).toContain('aria-invalid="true" aria-describedby="f-url-error"');
    // What was typed is kept.
    expect(refusedPage.text).toContain('value="http://127.0.0.1:9/hook"');

    const saved = await client.post(
      path,
      {
        new_group: 'on',
        frequency_on: 'on',
        frequency_count: '20',
        frequency_minutes: '5',
        room_id: channel.id,
        url: '',
        environments: 'production, staging',
      },
      { csrfFrom: path },
    );
    expect(saved.status).toBe(303);
    const rule = await web.ctx.db
      .selectFrom('error_alert_rules')
      .selectAll()
      .where('workspace_id', '=', ws.id)
      .executeTakeFirstOrThrow();
    expect(rule).toMatchObject({
      room_id: channel.id,
      new_group: true,
      regression: false,
      frequency_count: 20,
      frequency_minutes: 5,
      hook_id: null,
      environments: ['production', 'staging'],
    });

    const member = await createMember(web.ctx.db, ws, { role: 'member' });
    const memberClient = new FormClient(web.url);
    await memberClient.signIn(member.user.email, member.user.password);
    expect((await memberClient.get(path)).status).toBe(403);
  });
});
