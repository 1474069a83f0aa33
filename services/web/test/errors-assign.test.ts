import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '@ferry/core';
import {
  createApiToken,
  createErrorGroup,
  createMember,
  createUser,
  FormClient,
} from '@ferry/testing';
import { assignErrorGroup } from '@ferry/workspace';
import { signedInSeat, startWeb, type WebHarness } from './harness.js';

/**
 * Issue 43, assignment: the group page's control, the list's row and "Assigned to me", the
 * assignee's Mentions, the API's `assignee_id`, and the guest rule (neither assigner nor assignee).
 */
describe('assigning error groups', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWeb();
  });
  afterAll(async () => {
    await web?.close();
  });

  async function setUp() {
    const admin = await signedInSeat(web, 'admin');
    const { workspace } = admin;
    const ada = await createMember(web.ctx.db, workspace, {
      role: 'member',
      user: await createUser(web.ctx.db, { name: 'Ada Assignee' }),
    });
    const adaClient = new FormClient(web.url);
    await adaClient.signIn(ada.user.email, ada.user.password);
    const guest = await createMember(web.ctx.db, workspace, {
      role: 'guest',
      user: await createUser(web.ctx.db, { name: 'Gus Guest' }),
    });
    const group = await createErrorGroup(web.ctx.db, workspace, {
      error_class: 'TypeError',
      latest_message: 'x is <b>undefined</b>',
    });
    const other = await createErrorGroup(web.ctx.db, workspace, {
      error_class: 'RangeError',
      latest_message: 'nobody looks after this one',
    });
    return { ...admin, ada, adaClient, guest, group, other };
  }

  it('assigns from the group page, notifies the assignee in Mentions, and lists it as theirs', async () => {
    const { client, base, ada, adaClient, group, other } = await setUp();
    const here = `${base}/errors/${group.id}`;
    const page = await client.get(here);
    expect(page.text).toContain('Assigned to <strong>nobody</strong>');
    expect(page.text).toContain('Ada Assignee');

    const assigned = await client.post(
      `${here}/assignee`,
      { assignee_id: ada.id },
      { csrfFrom: here },
    );
    expect(assigned.status).toBe(303);
    expect(assigned.location).toBe(here);
    const after = await client.get(here);
    expect(after.text).toContain('Assigned to Ada Assignee.');
    expect(after.text).toContain('Assigned to <strong>Ada Assignee</strong>');

    // The assignee's sidebar counts one mention, and the Mentions page says what and links there.
    const dashboard = await adaClient.get(base);
    expect(dashboard.text).toMatch(/data-mentions[^>]*>Mentions<span[^>]*>1</);
    const mentions = await adaClient.get(`${base}/mentions`);
    expect(mentions.text).toContain('1 new mention since you last looked.');
    expect(mentions.text).toContain('assigned you the error “TypeError: x is &lt;b&gt;undefined');
    expect(mentions.text).toContain(`href="${here}"`);

    // The list row names the assignee; "Assigned to me" (one click from the sidebar) lists it.
    const list = await client.get(`${base}/errors`);
    expect(list.text).toContain('→ Ada Assignee');
    expect(dashboard.text).toContain(`href="${base}/errors?q=is%3Aunresolved+assigned%3Ame"`);
    const mine = await adaClient.get(`${base}/errors?q=is%3Aunresolved+assigned%3Ame`);
    expect(mine.status).toBe(200);
    expect(mine.text).toContain('Showing errors assigned to you.');
    expect(mine.text).toContain(`${base}/errors/${group.id}`);
    expect(mine.text).not.toContain(`${base}/errors/${other.id}`);
    // The admin has none.
    const theirs = await client.get(`${base}/errors?q=is%3Aunresolved+assigned%3Ame`);
    expect(theirs.text).toContain('Nothing assigned to you here');

    // Assigning the same person again writes nothing and notifies nobody.
    await client.post(`${here}/assignee`, { assignee_id: ada.id }, { csrfFrom: here });
    expect((await adaClient.get(`${base}/mentions`)).text).not.toContain('since you last looked');
  });

  it('unassigns: Nobody clears the assignee, the row and "Assigned to me"', async () => {
    const { client, base, ada, adaClient, group } = await setUp();
    const here = `${base}/errors/${group.id}`;
    await client.post(`${here}/assignee`, { assignee_id: ada.id }, { csrfFrom: here });
    const cleared = await client.post(`${here}/assignee`, { assignee_id: '' }, { csrfFrom: here });
    expect(cleared.status).toBe(303);
    const page = await client.get(here);
    expect(page.text).toContain('Nobody is assigned now.');
    expect(page.text).toContain('Assigned to <strong>nobody</strong>');
    expect((await client.get(`${base}/errors`)).text).not.toContain('→ Ada Assignee');
    expect(
      (await adaClient.get(`${base}/errors?q=is%3Aunresolved+assigned%3Ame`)).text,
    ).not.toContain(`${base}/errors/${group.id}`);
    const row = await web.ctx.db
      .selectFrom('error_groups')
      .select('assignee_member_id')
      .where('id', '=', group.id)
      .executeTakeFirstOrThrow();
    expect(row.assignee_member_id).toBeNull();
  });

  it('refuses a guest as assignee (page and API) and as assigner (domain, page)', async () => {
    const { workspace, client, base, guest, group, ada } = await setUp();
    const here = `${base}/errors/${group.id}`;
    // A guest is not among the choices, and sending their id anyway is refused with a reason.
    expect((await client.get(here)).text).not.toContain('Gus Guest');
    const refused = await client.post(
      `${here}/assignee`,
      { assignee_id: guest.id },
      { csrfFrom: here },
    );
    expect(refused.status).toBe(303);
    const page = await client.get(here);
    expect(page.text).toContain('guests cannot be assigned');
    expect(page.text).toContain('Assigned to <strong>nobody</strong>');

    // As assigner: the rule is the domain function's, whoever calls it.
    const asGuest = assignErrorGroup(web.ctx.db, {
      workspaceId: workspace.id,
      groupId: group.id,
      actor: { kind: 'member', memberId: guest.id, role: 'guest', name: 'Gus Guest' },
      assigneeId: ada.id,
    });
    await expect(asGuest).rejects.toBeInstanceOf(AppError);
    await expect(asGuest).rejects.toMatchObject({ code: 'forbidden' });
    // And on the page: a guest may not even read errors, so the post is refused before it.
    const guestClient = new FormClient(web.url);
    await guestClient.signIn(guest.user.email, guest.user.password);
    const guestPost = await guestClient.post(
      `${here}/assignee`,
      { assignee_id: ada.id },
      { csrfFrom: base },
    );
    expect(guestPost.status).toBe(403);

    // The API: a guest's id is a 422 naming assignee_id.
    const writer = (await createApiToken(web.ctx.db, workspace, { scopes: ['tenant:write'] })).raw;
    const res = await fetch(`${web.url}/api/v1/errors/${group.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json' },
      body: JSON.stringify({ assignee_id: guest.id, status: 'resolved' }),
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { error: { fields?: Record<string, string> } };
    expect(body.error.fields?.assignee_id).toContain('guests cannot be assigned');
    const row = await web.ctx.db
      .selectFrom('error_groups')
      .select(['assignee_member_id', 'status'])
      .where('id', '=', group.id)
      .executeTakeFirstOrThrow();
    // Refused as a whole: the status asked for with it was not set either.
    expect(row).toEqual({ assignee_member_id: null, status: 'unresolved' });
  });

  it('assigns and unassigns through PATCH /api/v1/errors/:id, status-only bodies as before', async () => {
    const { workspace, base, ada, adaClient, group } = await setUp();
    const writer = (await createApiToken(web.ctx.db, workspace, { scopes: ['tenant:write'] })).raw;
    const reader = (await createApiToken(web.ctx.db, workspace, { scopes: ['tenant:read'] })).raw;
    const patch = (body: unknown, token = writer) =>
      fetch(`${web.url}/api/v1/errors/${group.id}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    type GroupBody = { group: { assignee_id: string | null; status: string } };

    const assigned = await patch({ assignee_id: ada.id });
    expect(assigned.status).toBe(200);
    expect(((await assigned.json()) as GroupBody).group).toMatchObject({
      assignee_id: ada.id,
      status: 'unresolved',
    });
    const mentions = await adaClient.get(`${base}/mentions`);
    expect(mentions.text).toContain('An API client assigned you the error “TypeError');

    const read = await fetch(`${web.url}/api/v1/errors/${group.id}`, {
      headers: { authorization: `Bearer ${reader}` },
    });
    expect(((await read.json()) as GroupBody).group.assignee_id).toBe(ada.id);

    // A status alone, as clients sent before assignment existed: the assignee stays.
    const resolved = await patch({ status: 'resolved' });
    expect(resolved.status).toBe(200);
    expect(((await resolved.json()) as GroupBody).group).toMatchObject({
      assignee_id: ada.id,
      status: 'resolved',
    });

    const unassigned = await patch({ assignee_id: null });
    expect(unassigned.status).toBe(200);
    expect(((await unassigned.json()) as GroupBody).group.assignee_id).toBeNull();

    // Clear errors: nothing to change, a wrong type, an unknown member, a read-only token.
    for (const [body, field] of [
      [{}, undefined],
      [{ assignee_id: 42 }, 'assignee_id'],
      [{ assignee_id: 'mem_nobody' }, 'assignee_id'],
      [{ assignee_id: 'x'.repeat(500) }, 'assignee_id'],
    ] as const) {
      const res = await patch(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      const error = (await res.json()) as { error: { fields?: Record<string, string> } };
      if (field) expect(error.error.fields?.[field], JSON.stringify(body)).toBeTruthy();
    }
    expect((await patch({ assignee_id: ada.id }, reader)).status).toBe(403);
    const missing = await fetch(`${web.url}/api/v1/errors/egr_nope`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json' },
      body: JSON.stringify({ assignee_id: ada.id }),
    });
    expect(missing.status).toBe(404);
  });
});
