import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Workspace } from '@ferry/db';
import { createMember, createWorkspace } from '@ferry/testing';
import { EVIDENCE_MAX_BYTES, prepareEvidence, saveWidgetSettings } from '@ferry/workspace';
import { FormClient, signedInSeat, startWeb, type WebHarness } from './harness.js';

/**
 * The widget's evidence on the server (issue 45): the Widget page's switch (off by default,
 * `settings.manage`), GET /widget/v1/config telling the widget, the feedback endpoint checking
 * the evidence (422 naming the field), storing it only while the switch is on, scrubbed with the
 * error reports' rules and capped at 64 KB with what was cut counted; the ticket page's timeline.
 */

const CARD = '4111 1111 1111 1111';
const BEARER = 'Bearer eyJhbGciOiJIUzI1NiJ9.s3cr3t';
const TOKEN = 'tok_live_QWERTY123';

describe('feedback evidence', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWeb();
  });
  afterAll(async () => {
    await web?.close();
  });

  async function post(workspace: Workspace, body: unknown): Promise<Response> {
    return fetch(`${web.url}/widget/v1/feedback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-tenant': workspace.public_key },
      body: JSON.stringify(body),
    });
  }

  const now = Date.now();
  const evidence = {
    captured_at: now,
    console: [
      { t: now - 9_000, level: 'log', text: `paying with ${CARD}` },
      { t: now - 8_000, level: 'info', text: `{Authorization: ${BEARER}}` },
    ],
    network: [
      {
        t: now - 7_000,
        kind: 'fetch',
        method: 'get',
        url: `https://shop.test/api/cart?token=${TOKEN}&page=2#access_token=${TOKEN}`,
        status: 500,
        ms: 31.6,
        size: 120,
      },
      {
        t: now - 6_000,
        kind: 'xhr',
        method: 'POST',
        url: 'https://shop.test/api/pay',
        status: 0,
        ms: 12,
        size: null,
      },
    ],
    errors: [
      {
        t: now - 5_000,
        kind: 'error',
        name: 'TypeError',
        message: `cannot read card ${CARD}`,
        stack: `TypeError: x\n    at pay (https://shop.test/app.js?session=${TOKEN}:1:2)`,
      },
    ],
    navigation: [{ t: now - 4_000, kind: 'push', url: 'https://shop.test/checkout?step=2' }],
    dropped: { console: 3 },
  };

  const stored = (feedbackId: string) =>
    web.ctx.db
      .selectFrom('feedback_evidence')
      .selectAll()
      .where('feedback_id', '=', feedbackId)
      .executeTakeFirst();

  it('is off by default; the Widget page turns it on for admins, and config tells the widget', async () => {
    const { workspace, client, base } = await signedInSeat(web, 'admin');
    const config = () =>
      fetch(`${web.url}/widget/v1/config?key=${workspace.public_key}`).then(async (res) => ({
        status: res.status,
        cors: res.headers.get('access-control-allow-origin'),
        body: (await res.json()) as unknown,
      }));
    expect(await config()).toEqual({ status: 200, cors: '*', body: { capture: false } });
    const page = await client.get(`${base}/settings/widget`);
    expect(page.text).toContain('Attach console and network activity to feedback');
    expect(page.text).not.toMatch(/name="capture"\s+checked/);

    const saved = await client.post(
      `${base}/settings/widget/capture`,
      { capture: 'on' },
      { csrfFrom: `${base}/settings/widget` },
    );
    expect(saved.status).toBe(303);
    const after = await client.follow(saved);
    expect(after.text).toMatch(/name="capture"\s+checked/);
    expect(after.text).toContain('will be attached to feedback');
    const row = await web.ctx.db
      .selectFrom('workspaces')
      .select('settings')
      .where('id', '=', workspace.id)
      .executeTakeFirstOrThrow();
    expect(row.settings.widget).toEqual({ capture: true });

    // A member may not change it.
    const member = await createMember(web.ctx.db, workspace, { role: 'member' });
    const memberClient = new FormClient(web.url);
    await memberClient.signIn(member.user.email, member.user.password);
    const refused = await memberClient.post(
      `${base}/settings/widget/capture`,
      {},
      { csrfFrom: `${base}/feedback` },
    );
    expect(refused.status).toBe(403);

    // An unknown key is a JSON 404 with CORS.
    const unknown = await fetch(`${web.url}/widget/v1/config?key=pk_nope`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('stores nothing when capture is off, even when a client sends evidence', async () => {
    const workspace = await createWorkspace(web.ctx.db, { name: 'Off Shop' });
    const res = await post(workspace, { note: 'Broken cart', evidence });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    expect(await stored(id)).toBeUndefined();
  });

  it('stores it scrubbed, merged by time, and shows the timeline to members', async () => {
    const workspace = await createWorkspace(web.ctx.db, { name: 'On Shop' });
    await saveWidgetSettings(web.ctx.db, workspace.id, { capture: true });
    const res = await post(workspace, { note: 'Broken cart', evidence });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    const row = (await stored(id))!;
    expect(row.captured_at.getTime()).toBe(now);
    expect(row.entries.map((e) => e.type)).toEqual([
      'console',
      'console',
      'network',
      'network',
      'error',
      'navigation',
    ]);
    expect(row.entries[2]).toMatchObject({
      method: 'GET',
      url: 'https://shop.test/api/cart?token=*&page=*#access_token=*',
      status: 500,
      ms: 32,
    });
    expect(row.dropped).toEqual({ console: 3 });
    const json = JSON.stringify(row);
    for (const secret of [CARD, '4111111111111111', 's3cr3t', TOKEN]) {
      expect(json).not.toContain(secret);
    }
    expect(json).toContain('[Filtered]');

    const member = await createMember(web.ctx.db, workspace, { role: 'member' });
    const client = new FormClient(web.url);
    await client.signIn(member.user.email, member.user.password);
    const page = await client.get(`/w/${workspace.id}/${workspace.slug}/feedback/${id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Before the report');
    expect(page.text).toContain('2 failed requests');
    expect(page.text).toContain('−7.0 s');
    expect(page.text).toMatch(/class="tl-item tl-error tl-bad/);
    for (const secret of [CARD, 's3cr3t', TOKEN]) expect(page.text).not.toContain(secret);
  });

  it('refuses malformed evidence with a 422 naming the field', async () => {
    const workspace = await createWorkspace(web.ctx.db, { name: 'Bad Shop' });
    await saveWidgetSettings(web.ctx.db, workspace.id, { capture: true });
    const long = { ...evidence, console: [{ t: now, level: 'log', text: 'x'.repeat(501) }] };
    const res = await post(workspace, { note: 'x', evidence: long });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { error: { fields: Record<string, string> } };
    expect(Object.keys(body.error.fields)).toContain('evidence.console.0.text');
    const many = { ...evidence, network: Array(51).fill(evidence.network[0]) };
    expect((await post(workspace, { note: 'x', evidence: many })).status).toBe(422);
  });

  it('caps a ticket at 64 KB: the oldest entries go first and are counted as dropped', () => {
    const errors = Array.from({ length: 50 }, (_, i) => ({
      t: now - 50_000 + i * 1000,
      kind: 'error' as const,
      name: 'Error',
      message: `failure ${i}`,
      stack: 'at x\n'.repeat(1500).slice(0, 8000),
    }));
    const prepared = prepareEvidence({
      captured_at: now,
      console: [{ t: now - 1, level: 'log', text: 'last line' }],
      network: [],
      errors,
      navigation: [],
      dropped: {},
    });
    expect(prepared.byteSize).toBeLessThanOrEqual(EVIDENCE_MAX_BYTES);
    expect(prepared.byteSize).toBe(Buffer.byteLength(JSON.stringify(prepared.entries)));
    const kept = prepared.entries.filter((e) => e.type === 'error').length;
    expect(kept).toBeGreaterThan(0);
    expect(prepared.dropped).toEqual({ error: 50 - kept });
    // The newest are the ones kept, and the console line at the end survives.
    expect(prepared.entries.at(-1)).toMatchObject({ type: 'console', text: 'last line' });
    expect(prepared.entries[0]).toMatchObject({ message: `failure ${50 - kept}` });
  });
});
