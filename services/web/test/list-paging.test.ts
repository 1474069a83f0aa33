import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId, SecretBox } from '@ferry/core';
import {
  createApiToken,
  createMember,
  createRoom,
  createUser,
  createWorkspace,
} from '@ferry/testing';
import { createIncomingKey } from '@ferry/workspace';
import { signedInSeat, startWeb, type FormClient, type WebHarness } from './harness.js';

/**
 * #42 defect 10: every list of the workspace is paged, 50 a page, with a count ("Showing 1–50 of
 * 120"), the create form on every page, and a clear answer to junk or stale page numbers.
 */
describe('paged lists', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWeb();
  });
  afterAll(async () => {
    await web.close();
  });

  /**
   * The distinct seeded names the page's main part shows (each row may name its item more than
   * once; the sidebar lists some rooms of its own).
   */
  const shown = (text: string, prefix: string): Set<string> =>
    new Set(text.slice(text.indexOf('<main')).match(new RegExp(`${prefix}\\d{3}`, 'g')) ?? []);

  async function expectPaged(
    client: FormClient,
    list: string,
    options: { prefix: string; total: number; seeded?: number; form?: string; param?: string },
  ): Promise<void> {
    const param = options.param ?? 'page';
    const first = await client.get(list);
    expect({ list, status: first.status }).toEqual({ list, status: 200 });
    expect({ list, rows: shown(first.text, options.prefix).size }).toEqual({ list, rows: 50 });
    expect(first.text).toContain(`Showing 1–50 of ${options.total}`);
    expect(first.text).toMatch(new RegExp(`href="[^"]*${param}=2"`));
    const second = await client.get(`${list}?${param}=2`);
    const rest = options.total - 50;
    expect({ list, rows: shown(second.text, options.prefix).size }).toEqual({
      list,
      rows: Math.min(50, (options.seeded ?? options.total) - 50),
    });
    expect(second.text).toContain(`Showing 51–${50 + Math.min(50, rest)} of ${options.total}`);
    // Nothing is on both pages.
    const both = [...shown(first.text, options.prefix)].filter((n) =>
      shown(second.text, options.prefix).has(n),
    );
    expect({ list, both }).toEqual({ list, both: [] });
    if (options.form)
      expect({ list, form: second.text.includes(options.form) }).toEqual({ list, form: true });
    // Junk reads as page 1; a page past the end says so and links back, never a 500.
    for (const junk of ['abc', '-3', '0', '1e9', '99999999999']) {
      const page = await client.get(`${list}?${param}=${junk}`);
      expect({ list, junk, status: page.status }).toEqual({ list, junk, status: 200 });
      expect(page.text).toContain(`Showing 1–50 of ${options.total}`);
    }
    const past = await client.get(`${list}?${param}=999`);
    expect({ list, status: past.status }).toEqual({ list, status: 200 });
    expect(past.text).toContain('Page 999 does not exist');
  }

  it('rooms, members, tokens, incoming keys, outgoing hooks and workspaces: 50 a page', async () => {
    const db = web.ctx.db;
    const { client, base, workspace, seat } = await signedInSeat(web, 'owner');
    // The owner's own room, seat and workspace sort after the seeded ones (page 2).
    const room = await createRoom(db, workspace, { name: 'zzgeneral', members: [seat] });
    await db.updateTable('users').set({ name: 'zzowner' }).where('id', '=', seat.user.id).execute();
    await db
      .updateTable('workspaces')
      .set({ name: 'zzworkspace' })
      .where('id', '=', workspace.id)
      .execute();
    const box = new SecretBox(web.ctx.config.APP_SECRET);
    for (let i = 0; i < 120; i++) {
      const n = String(i).padStart(3, '0');
      await createRoom(db, workspace, { name: `pgroom${n}`, members: i % 2 ? [seat] : [] });
    }
    for (let i = 0; i < 60; i++) {
      const n = String(i).padStart(3, '0');
      await createApiToken(db, workspace, { scopes: ['tenant:read'], name: `pgtoken${n}` });
      await createIncomingKey(db, box, {
        workspaceId: workspace.id,
        roomId: room.id,
        name: `pgkey${n}`,
        createdBy: seat.id,
      });
      await db
        .insertInto('outgoing_webhooks')
        .values({
          id: newId('outgoingWebhook'),
          workspace_id: workspace.id,
          room_id: room.id,
          target_url: `https://hooks.example.test/pghook${n}`,
          secret_sealed: 'v1.x.y.z',
        })
        .execute();
      const user = await createUser(db, { name: `pgmember${n}` });
      await createMember(db, workspace, { user });
    }
    // The seat's own user is in 55 more workspaces (56 in all).
    for (let i = 0; i < 55; i++) {
      const n = String(i).padStart(3, '0');
      const other = await createWorkspace(db, { name: `pgspace${n}` });
      await createMember(db, other, { user: seat.user });
    }

    await expectPaged(client, `${base}/rooms`, {
      prefix: 'pgroom',
      total: 121,
      seeded: 120,
      form: 'Create channel',
    });
    await expectPaged(client, `${base}/members`, {
      prefix: 'pgmember',
      total: 61, // the owner too, on page 2
      seeded: 60,
      form: 'Add member',
    });
    await expectPaged(client, `${base}/settings/tokens`, { prefix: 'pgtoken', total: 60 });
    const tab = `${base}/rooms/${room.id}/settings/webhooks`;
    await expectPaged(client, tab, {
      prefix: 'pgkey',
      total: 60,
      form: 'Create key',
      param: 'keys_page',
    });
    await expectPaged(client, tab, {
      prefix: 'pghook',
      total: 60,
      form: 'Create hook',
      param: 'hooks_page',
    });
    // The sidebar lists a bounded few of the owner's 61 rooms, and links to them all.
    const page = await client.get(`${base}/members`);
    const sidebar = page.text.slice(0, page.text.indexOf('<main'));
    expect(sidebar.match(/data-room-id=/g)?.length).toBe(30);
    expect(sidebar).toMatch(new RegExp(`href="${base}/rooms"\\s*>All 61 rooms`));
    await expectPaged(client, '/workspaces', { prefix: 'pgspace', total: 56, seeded: 55 });
  });
});
