import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiToken, createRoom } from '@ferry/testing';
import { findAgent, listRoomOutgoingHooks, registerAgent } from '@ferry/workspace';
import { signedInSeat, startWeb, type WebHarness } from './harness.js';

/**
 * Issue 47: every URL a user gives Ferry to call (a room's outgoing hook, an event webhook
 * endpoint, an error alert rule's URL, an agent's wake URL) is stored in its WHATWG normal form,
 * `new URL(x).href`: what was checked and what Node dials, so no other reader of the row can take
 * it for another host. Odd forms are written out in full or refused on their normal form.
 *
 * SSRF stays on (the default) and every host is an IP literal, so nothing is resolved; the web
 * service runs alone (no webhooks-out), so nothing is ever sent to these addresses.
 */
const NORMALIZED: [typed: string, stored: string][] = [
  ['HTTPS://93.184.216.34:443/Hooks/Ferry', 'https://93.184.216.34/Hooks/Ferry'],
  ['http://93.184.216.34:80', 'http://93.184.216.34/'],
  ['https:\\\\93.184.216.34\\hooks\\a b', 'https://93.184.216.34/hooks/a%20b'],
  // The example: Node dials 1.1.1.1, and the stored form now says so to every reader.
  ['http://1.1.1.1\\@127.0.0.1/', 'http://1.1.1.1/@127.0.0.1/'],
  ['https://93.184.216.34/%7efile?q=a b#part', 'https://93.184.216.34/%7efile?q=a%20b#part'],
  ['http://0x5d.0xb8.0xd8.0x22/x', 'http://93.184.216.34/x'],
  ['https://%39%33.184.216.34/x', 'https://93.184.216.34/x'],
];

/** Refused on what they are once normalized (the first three are loopback in disguise). */
const REFUSED: [typed: string, problem: RegExp][] = [
  ['http://0x7f.1/', /127\.0\.0\.1 is a loopback address/],
  ['http://2130706433/hook', /127\.0\.0\.1 is a loopback address/],
  // The mirror of the example: a reader splitting at `@` would see 1.1.1.1.
  ['http://127.0.0.1\\@1.1.1.1/', /127\.0\.0\.1 is a loopback address/],
  ['http://user:secret@93.184.216.34/', /credentials in the receiver/],
  ['HTTP://', /full URL/],
];

interface ErrorJson {
  error: { code: string; fields?: Record<string, string> };
}

describe('stored URLs are kept in their normal form', () => {
  let web: WebHarness;
  let seated: Awaited<ReturnType<typeof signedInSeat>>;
  let writer: string;

  beforeAll(async () => {
    web = await startWeb({ ALLOW_PRIVATE_WEBHOOK_TARGETS: 'false' });
    seated = await signedInSeat(web, 'admin');
    writer = (await createApiToken(web.ctx.db, seated.workspace, { scopes: ['tenant:write'] })).raw;
  });
  afterAll(async () => {
    await web?.close();
  });

  const api = (method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) =>
    fetch(`${web.url}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${writer}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  describe('event webhook endpoints (API)', () => {
    it.each(NORMALIZED)('stores %s as %s', async (typed, stored) => {
      const created = await api('POST', '/event-webhooks', {
        url: typed,
        event_types: ['error.group.created'],
      });
      const body = (await created.json()) as { id: string; url: string };
      expect({ status: created.status, url: body.url }).toEqual({ status: 201, url: stored });
      const read = (await (await api('GET', `/event-webhooks/${body.id}`)).json()) as {
        url: string;
      };
      expect(read.url).toBe(stored);
      // Replacing it goes through the same check.
      const replaced = await api('PUT', `/event-webhooks/${body.id}`, {
        url: typed,
        event_types: ['error.group.created'],
      });
      const again = (await replaced.json()) as { url: string };
      expect({ status: replaced.status, url: again.url }).toEqual({ status: 200, url: stored });
    });

    it.each(REFUSED)('refuses %s with a 422 naming url', async (typed, problem) => {
      const refused = await api('POST', '/event-webhooks', {
        url: typed,
        event_types: ['error.group.created'],
      });
      const body = (await refused.json()) as ErrorJson;
      expect(refused.status).toBe(422);
      expect(body.error.code).toBe('validation_failed');
      expect(body.error.fields?.url).toMatch(problem);
    });
  });

  describe('error alert rule URLs (API)', () => {
    const rules = (url: string | null) => ({
      room_id: null,
      new_group: true,
      regression: false,
      frequency: null,
      url,
      environments: null,
    });

    it.each(NORMALIZED)('stores %s as %s', async (typed, stored) => {
      const saved = await api('PUT', '/error-alerts', rules(typed));
      const body = (await saved.json()) as { url: string };
      expect({ status: saved.status, url: body.url }).toEqual({ status: 200, url: stored });
      const read = (await (await api('GET', '/error-alerts')).json()) as { url: string };
      expect(read.url).toBe(stored);
    });

    it.each(REFUSED)('refuses %s with a 422 naming url', async (typed, problem) => {
      const refused = await api('PUT', '/error-alerts', rules(typed));
      const body = (await refused.json()) as ErrorJson;
      expect(refused.status).toBe(422);
      expect(body.error.fields?.url).toMatch(problem);
    });
  });

  describe("a room's outgoing hooks (the Webhooks tab's form)", () => {
    it.each(NORMALIZED)('stores %s as %s', async (typed, stored) => {
      const { client, base, seat, workspace } = seated;
      const room = await createRoom(web.ctx.db, workspace, { members: [seat] });
      const tab = `${base}/rooms/${room.id}/settings/webhooks`;
      const res = await client.post(`${tab}/outgoing`, { target_url: typed }, { csrfFrom: tab });
      expect(res.status).toBe(303);
      const hooks = await listRoomOutgoingHooks(web.ctx.db, room.id);
      expect(hooks.items.map((hook) => hook.target_url)).toEqual([stored]);
    });

    it.each(REFUSED)('refuses %s, saying why in the form', async (typed, problem) => {
      const { client, base, seat, workspace } = seated;
      const room = await createRoom(web.ctx.db, workspace, { members: [seat] });
      const tab = `${base}/rooms/${room.id}/settings/webhooks`;
      const res = await client.post(`${tab}/outgoing`, { target_url: typed }, { csrfFrom: tab });
      expect((await client.follow(res)).text).toMatch(problem);
      expect((await listRoomOutgoingHooks(web.ctx.db, room.id)).items).toEqual([]);
    });
  });

  describe("an agent's wake URL (its Configure page's form)", () => {
    let agentId: string;
    beforeAll(async () => {
      const token = await createApiToken(web.ctx.db, seated.workspace, {
        scopes: ['platform:dispatch'],
      });
      const agent = await registerAgent(web.ctx.db, {
        workspaceId: seated.workspace.id,
        installId: 'install-stored-urls',
        name: 'Shop',
        tokenId: token.id,
      });
      agentId = agent.id;
    });
    const wakeUrl = async () =>
      (await findAgent(web.ctx.db, seated.workspace.id, agentId))?.wake_url;

    it.each(NORMALIZED)('stores %s as %s', async (typed, stored) => {
      const page = `${seated.base}/agents/${agentId}`;
      const res = await seated.client.post(`${page}/wake`, { wake_url: typed }, { csrfFrom: page });
      expect(res.status).toBe(303);
      expect(await wakeUrl()).toBe(stored);
    });

    it.each(REFUSED)('refuses %s, saying why in the form', async (typed, problem) => {
      const page = `${seated.base}/agents/${agentId}`;
      const before = await wakeUrl();
      const res = await seated.client.post(`${page}/wake`, { wake_url: typed }, { csrfFrom: page });
      expect((await seated.client.follow(res)).text).toMatch(problem);
      expect(await wakeUrl()).toBe(before);
    });
  });
});
