import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '@ferry/core';
import { createMember, createMessage, createRoom, createWorkspace } from '@ferry/testing';
import { FormClient, startWeb, type WebHarness } from './harness.js';

describe('room settings: webhooks tab and incoming key page', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWeb();
  });
  afterAll(async () => {
    await web?.close();
  });

  async function setup() {
    const workspace = await createWorkspace(web.ctx.db);
    const admin = await createMember(web.ctx.db, workspace, { role: 'admin' });
    const room = await createRoom(web.ctx.db, workspace, { members: [admin] });
    const client = new FormClient(web.url);
    await client.signIn(admin.user.email, admin.user.password);
    const tab = `/w/${workspace.id}/${workspace.slug}/rooms/${room.id}/settings/webhooks`;
    return { workspace, admin, room, client, tab };
  }

  it('creates a key, masks it until Reveal (a CSRF-checked POST), rotates, disables, deletes', async () => {
    const { client, tab } = await setup();
    const created = await client.post(`${tab}/incoming`, { name: 'Deploy bot' }, { csrfFrom: tab });
    expect(created.status).toBe(303);
    const keyPath = created.location ?? '';
    expect(keyPath).toMatch(new RegExp(`^${tab}/incoming/whk_`));
    const keyId = keyPath.split('/').pop() ?? '';
    const row = await web.ctx.db
      .selectFrom('incoming_webhooks')
      .selectAll()
      .where('id', '=', keyId)
      .executeTakeFirstOrThrow();
    const raw = new SecretBox(web.ctx.config.APP_SECRET).decrypt(row.key_sealed);

    const masked = await client.get(keyPath);
    expect(masked.status).toBe(200);
    expect(masked.text).not.toContain(raw);
    expect(masked.text).toContain(`${row.key_prefix}…`);
    expect((await client.get(tab)).text).toContain('Deploy bot');

    expect((await client.post(`${keyPath}/reveal`, { _csrf: '' })).status).toBe(403);
    const revealed = await client.post(`${keyPath}/reveal`, {}, { csrfFrom: keyPath });
    expect(revealed.status).toBe(200);
    expect(revealed.text).toContain(`${web.ctx.config.PUBLIC_URL}/wh/in/${raw}`);
    expect(revealed.text).toContain('curl -sS -X POST');
    // A post that answers with a page still has the sidebar's rooms (read only when a post renders,
    // request-context.ts loadUnread).
    expect(revealed.text).toContain('id="nav-rooms"');

    expect((await client.post(`${keyPath}/rotate`, {}, { csrfFrom: keyPath })).status).toBe(303);
    const after = await client.post(`${keyPath}/reveal`, {}, { csrfFrom: keyPath });
    expect(after.text).not.toContain(raw);

    await client.post(`${keyPath}/disable`, {}, { csrfFrom: keyPath });
    expect((await client.get(keyPath)).text).toContain('>Enable<');
    await client.post(`${keyPath}/enable`, {}, { csrfFrom: keyPath });
    expect((await client.get(keyPath)).text).toContain('>Disable<');
    const deleted = await client.post(`${keyPath}/delete`, {}, { csrfFrom: keyPath });
    expect(deleted.location).toBe(tab);
    expect((await client.get(keyPath)).status).toBe(404);
    const gone = await web.ctx.db
      .selectFrom('incoming_webhooks')
      .select('deleted_at')
      .where('id', '=', keyId)
      .executeTakeFirstOrThrow();
    expect(gone.deleted_at).not.toBeNull();
  });

  it('names the problem: a blank name, or a room the admin has not joined', async () => {
    const { client, tab, workspace, admin } = await setup();
    const blank = await client.post(`${tab}/incoming`, { name: ' ' }, { csrfFrom: tab });
    expect(blank.status).toBe(303);
    const blankPage = await client.follow(blank);
    expect(blankPage.text).toContain('Give the key a name.');
    const other = await createRoom(web.ctx.db, workspace);
    const otherTab = tab.replace(/rooms\/[^/]+/, `rooms/${other.id}`);
    const notJoined = await client.post(
      `${otherTab}/incoming`,
      { name: 'x' },
      { csrfFrom: otherTab },
    );
    expect(notJoined.status).toBe(303);
    const notJoinedPage = await client.follow(notJoined);
    expect(notJoinedPage.text).toContain('Join #');
    expect(admin.role).toBe('admin');
  });

  it('is for admins only; members get 403 and no Webhooks link on the room page', async () => {
    const { workspace, room, tab } = await setup();
    const member = await createMember(web.ctx.db, workspace, { role: 'member' });
    const client = new FormClient(web.url);
    await client.signIn(member.user.email, member.user.password);
    expect((await client.get(tab)).status).toBe(403);
    expect(
      (
        await client.post(
          `${tab}/incoming`,
          { name: 'x' },
          { csrfFrom: `/w/${workspace.id}/${workspace.slug}/rooms` },
        )
      ).status,
    ).toBe(403);
    const roomPage = await client.get(`/w/${workspace.id}/${workspace.slug}/rooms/${room.id}`);
    expect(roomPage.text).not.toContain('/settings/webhooks');
  });

  it('lists outgoing hooks with state and failures, and offers the create form', async () => {
    const { client, tab, workspace, room } = await setup();
    await web.ctx.db
      .insertInto('outgoing_webhooks')
      .values({
        id: 'owh_01hzzzzzzzzzzzzzzzzzzzzzzz',
        workspace_id: workspace.id,
        room_id: room.id,
        target_url: 'https://hooks.example.test/in',
        secret_sealed: 'v1.x.y.z',
        state: 'disabled',
        consecutive_failures: 20,
      })
      .execute();
    const page = await client.get(tab);
    expect(page.text).toContain('https://hooks.example.test/in');
    expect(page.text).toContain(`${tab}/outgoing/owh_01hzzzzzzzzzzzzzzzzzzzzzzz`);
    expect(page.text).toMatch(/<td>\s*20\s*<\/td>/);
    expect(page.text).toContain('name="target_url"');
    expect(page.text).toContain(`action="${tab}/outgoing"`);
  });
  it("links a webhook post's badge to the key's page under the key's own room (#28)", async () => {
    const { client, tab, workspace, admin, room } = await setup();
    const created = await client.post(`${tab}/incoming`, { name: 'Deploy bot' }, { csrfFrom: tab });
    const keyPath = created.location ?? '';
    const keyId = keyPath.split('/').pop() ?? '';
    // The key belongs to `room` but posted to `deploys` (the payload's `channel`).
    const deploys = await createRoom(web.ctx.db, workspace, { name: 'deploys', members: [admin] });
    await createMessage(web.ctx.db, deploys, {
      author_kind: 'webhook',
      author_ref: keyId,
      display_name: 'Deploy bot',
      body: 'x',
    });
    const deploysPage = await client.get(
      `/w/${workspace.id}/${workspace.slug}/rooms/${deploys.id}`,
    );
    expect(deploysPage.text).toContain(`href="${keyPath}"`);
    expect(keyPath).toContain(`/rooms/${room.id}/`);
    expect((await client.get(keyPath)).status).toBe(200);

    // A deleted key's page is 404: its badge links nowhere.
    await client.post(`${keyPath}/delete`, {}, { csrfFrom: keyPath });
    const after = await client.get(`/w/${workspace.id}/${workspace.slug}/rooms/${deploys.id}`);
    expect(after.text).not.toContain(`/incoming/${keyId}`);
    expect(after.text).toContain('>webhook</span>');
  });

  it('lists each sender URL with a ready command, and sets, refuses and removes the GitHub secret (issue 44)', async () => {
    const { client, tab } = await setup();
    const created = await client.post(`${tab}/incoming`, { name: 'CI' }, { csrfFrom: tab });
    const keyPath = created.location ?? '';
    const keyId = keyPath.split('/').pop() ?? '';
    const box = new SecretBox(web.ctx.config.APP_SECRET);
    const row = () =>
      web.ctx.db
        .selectFrom('incoming_webhooks')
        .selectAll()
        .where('id', '=', keyId)
        .executeTakeFirstOrThrow();
    const raw = box.decrypt((await row()).key_sealed);
    const base = `${web.ctx.config.PUBLIC_URL}/wh/in/${raw}`;

    const revealed = await client.post(`${keyPath}/reveal`, {}, { csrfFrom: keyPath });
    for (const text of [
      `${base}</code>`,
      `${base}/slack</code>`,
      `${base}/github</code>`,
      `${base}/discord</code>`,
      `curl -sS -X POST &#39;${base}/slack&#39;`,
      'apprise -vv -b',
      `/wh/in/${raw}/slack/ferry`,
      '<code>application/json</code>',
      'new WebhookClient(',
      `rest: { api: &quot;${base}/discord&quot; }`,
      'not set: deliveries are taken unsigned',
    ]) {
      expect(revealed.text).toContain(text);
    }
    // Masked before Reveal: no URL carries the key.
    expect((await client.get(keyPath)).text).not.toContain(raw);

    const secret = 'gh-secret <b>1</b>';
    const set = await client.post(
      `${keyPath}/github-secret`,
      { github_secret: secret },
      { csrfFrom: keyPath },
    );
    expect(set.status).toBe(303);
    const stored = await row();
    expect(box.decrypt(stored.github_secret_sealed!)).toBe(secret);
    const page = await client.get(keyPath);
    expect(page.text).toMatch(/data-testid="github-secret-state">set /);
    expect(page.text).not.toContain(secret);
    expect(page.text).toMatch(/<button[^>]*>\s*Remove secret\s*<\/button>/);

    // Refused: blank, and spaces GitHub would sign with; the old secret stays, the error is shown.
    for (const bad of ['', ' padded ']) {
      const refused = await client.post(
        `${keyPath}/github-secret`,
        { github_secret: bad },
        { csrfFrom: keyPath },
      );
      expect(refused.status).toBe(303);
      const shown = await client.get(refused.location ?? keyPath);
      expect(shown.text).toContain('aria-invalid="true"');
      expect(box.decrypt((await row()).github_secret_sealed!)).toBe(secret);
    }

    await client.post(`${keyPath}/github-secret/remove`, {}, { csrfFrom: keyPath });
    expect((await row()).github_secret_sealed).toBeNull();
    expect((await client.get(keyPath)).text).toContain('not set: deliveries are taken unsigned');
  });
});
