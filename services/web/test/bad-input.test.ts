import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createApiToken,
  createFeedback,
  createMember,
  createRoom,
  createWorkspace,
} from '@ferry/testing';
import { FormClient, startWeb, type WebHarness } from './harness.js';

/**
 * A sweep over every form and endpoint with hostile input: repeated fields (arrays where strings
 * belong), huge values, junk and foreign ids. Whatever the answer, it is a 4xx (or a redirect after
 * a harmless success), never a 500, never a stack trace.
 */
describe('bad input never reaches a 500', () => {
  let web: WebHarness;
  let client: FormClient;
  let base: string;
  let foreign: { roomId: string; memberId: string; tokenId: string; feedbackId: string };
  let token: string;
  beforeAll(async () => {
    web = await startWeb();
    const workspace = await createWorkspace(web.ctx.db);
    const admin = await createMember(web.ctx.db, workspace, { role: 'owner' });
    await createRoom(web.ctx.db, workspace, { name: 'general', members: [admin] });
    token = (await createApiToken(web.ctx.db, workspace, { scopes: ['tenant:write'] })).raw;
    const other = await createWorkspace(web.ctx.db);
    const otherMember = await createMember(web.ctx.db, other);
    foreign = {
      roomId: (await createRoom(web.ctx.db, other, { members: [otherMember] })).id,
      memberId: otherMember.id,
      tokenId: (await createApiToken(web.ctx.db, other)).id,
      feedbackId: (await createFeedback(web.ctx.db, other)).id,
    };
    client = new FormClient(web.url);
    await client.signIn(admin.user.email, admin.user.password);
    base = `/w/${workspace.id}/${workspace.slug}`;
  });
  afterAll(async () => {
    await web.close();
  });

  function expectClientError(status: number, text: string, what: string): void {
    expect({ what, status: status >= 500 ? status : 'ok' }).toEqual({ what, status: 'ok' });
    expect(text).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/); // no stack trace
  }

  /** Posts a raw urlencoded body (so fields can repeat) with a valid CSRF token. */
  async function rawPost(path: string, body: string): Promise<{ status: number; text: string }> {
    const csrf = await client.csrf(base);
    return client.post(
      path,
      Object.fromEntries(new URLSearchParams(`${body}&_csrf=${encodeURIComponent(csrf)}`)),
    );
  }

  it('forms', async () => {
    const huge = 'x'.repeat(60_000);
    const forms: [string, Record<string, string>][] = [
      ['/login', { email: huge, password: huge }],
      ['/signup', { name: huge, email: huge, password: huge }],
      ['/workspaces', { name: huge }],
      [`${base}/members`, { email: huge, role: huge }],
      [`${base}/members/${foreign.memberId}/remove`, {}],
      [`${base}/members/${'z'.repeat(300)}/remove`, {}],
      [`${base}/rooms`, { name: huge }],
      [`${base}/rooms/${foreign.roomId}/join`, {}],
      [`${base}/rooms/${foreign.roomId}/leave`, {}],
      [`${base}/rooms/${foreign.roomId}/messages`, { body: 'hi' }],
      [`${base}/rooms/room_%00/messages`, { body: 'hi' }],
      [`${base}/settings/tokens`, { name: huge, scopes: 'root' }],
      [`${base}/settings/tokens/${foreign.tokenId}/revoke`, {}],
      [`${base}/settings/tokens/not-a-token/revoke`, {}],
    ];
    for (const [path, form] of forms) {
      const res = await client.post(path, form, { csrfFrom: base });
      expectClientError(res.status, res.text, `POST ${path}`);
    }
    // The same fields sent twice arrive as arrays: a type error, not a crash.
    for (const path of [
      '/workspaces',
      `${base}/members`,
      `${base}/rooms`,
      `${base}/settings/tokens`,
    ]) {
      const res = await rawPost(
        path,
        'name=a&name=b&email=a@b.test&email=c@d.test&role=member&role=guest&scopes=tenant:read&scopes=tenant:read&body=a&body=b',
      );
      expectClientError(res.status, res.text, `POST ${path} (repeated fields)`);
    }
  });

  it('pages with junk and foreign ids', async () => {
    for (const path of [
      `${base}/rooms/${foreign.roomId}`,
      `${base}/rooms/%E0%A4%A`,
      `${base}/rooms/room_1?before=${'9'.repeat(500)}`,
      `${base}/feedback/${foreign.feedbackId}`,
      `${base}/feedback?page=-1&status=${'q'.repeat(1000)}`,
      `${base}/settings/tokens/${foreign.tokenId}/created`,
      '/w/%00/%00',
    ]) {
      const res = await client.get(path);
      expectClientError(res.status, res.text, `GET ${path}`);
    }
  });

  it('API bodies and ids', async () => {
    const bodies = [
      '{bad json',
      'null',
      '[]',
      '"a string"',
      '{"note": {"$gt": ""}}',
      '{"note": "x", "reporter": []}',
      '{"note": "x", "page": {"partials": [1, {"a": 2}]}}',
      JSON.stringify({ note: 'x', page: { viewport: { width: 1e308, height: -1 } } }),
      JSON.stringify({ note: 'x', element: { outer_html: 'y'.repeat(200_000) } }),
      `{"note":"x","nested":${'['.repeat(5000)}${']'.repeat(5000)}}`,
    ];
    for (const body of bodies) {
      const res = await fetch(`${web.url}/api/v1/feedback`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body,
      });
      expectClientError(res.status, await res.text(), `POST /api/v1/feedback ${body.slice(0, 40)}`);
    }
    for (const path of [
      `/api/v1/feedback/${foreign.feedbackId}`,
      '/api/v1/feedback/%00',
      '/api/v1/feedback?page=abc',
    ]) {
      const res = await fetch(`${web.url}${path}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expectClientError(res.status, await res.text(), `GET ${path}`);
      expect(res.status).toBeGreaterThanOrEqual(400);
    }
    for (const auth of [
      'Bearer',
      'Basic abc',
      `Bearer ${'a'.repeat(10_000)}`,
      'Bearer fry_\u00e9\u00e9',
    ]) {
      const res = await fetch(`${web.url}/api/v1/feedback`, { headers: { authorization: auth } });
      expect(res.status).toBe(401);
    }
  });
});
