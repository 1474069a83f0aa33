import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember, createRoom, createUser } from '@ferry/testing';
import { postMessage, postMessages } from '@ferry/workspace';
import { signedInSeat, startWeb, type WebHarness } from './harness.js';

/** The Mentions page over HTTP: paging and junk query values, and what a guest may see. */
describe('Mentions page', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWeb();
  });
  afterAll(async () => {
    await web?.close();
  });

  it('pages 30 at a time, says so past the last page, and takes junk page values as page 1', async () => {
    const { workspace, seat, client, base } = await signedInSeat(web, 'member');
    const author = await createMember(web.ctx.db, workspace, {
      user: await createUser(web.ctx.db, { name: 'Bob Pager' }),
    });
    const room = await createRoom(web.ctx.db, workspace, { members: [seat, author] });
    const handle = seat.user.name.split(' ')[0]!.toLowerCase();
    for (let i = 0; i < 31; i++) {
      await postMessage(web.ctx.db, {
        roomId: room.id,
        workspaceId: workspace.id,
        authorKind: 'member',
        authorMemberId: author.id,
        displayName: 'Bob Pager',
        body: `ping ${i} @${handle}`,
      });
    }
    const first = await client.get(`${base}/mentions`);
    expect(first.status).toBe(200);
    expect(first.text.match(/<li class="mention-card/g)).toHaveLength(30);
    expect(first.text).toContain('31 new mentions since you last looked.');
    expect(first.text).toContain('Page 1 of 2');
    const second = await client.get(`${base}/mentions?page=2`);
    expect(second.text.match(/<li class="mention-card/g)).toHaveLength(1);
    expect(second.text).toContain('ping 0');
    // Opening the page read them all: no "new" the second time.
    expect(second.text).not.toContain('since you last looked');

    const past = await client.get(`${base}/mentions?page=7`);
    expect(past.status).toBe(200);
    expect(past.text).toContain('Page 7 does not exist; the last page is 2.');
    for (const junk of ['abc', '-1', '0', '1e9', '%00']) {
      const res = await client.get(`${base}/mentions?page=${junk}`);
      expect(res.status).toBe(200);
      expect(res.text).toContain('Page 1 of 2');
    }
  });

  it("shows a guest only mentions in rooms they are in, and nobody else's", async () => {
    const { workspace, seat: guest, client, base } = await signedInSeat(web, 'guest');
    const author = await createMember(web.ctx.db, workspace, {
      user: await createUser(web.ctx.db, { name: 'Cat Channel' }),
    });
    const hidden = await createRoom(web.ctx.db, workspace, { members: [author] });
    const handle = guest.user.name.split(' ')[0]!.toLowerCase();
    await postMessage(web.ctx.db, {
      roomId: hidden.id,
      workspaceId: workspace.id,
      authorKind: 'member',
      authorMemberId: author.id,
      displayName: 'Cat Channel',
      body: `secret plans for @${handle}`,
    });
    const page = await client.get(`${base}/mentions`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('secret plans');
    expect(page.text).toContain('No mentions yet');
  });
  it('shows the sidebar counts as stored, "99+" past the cap, and hides zero', async () => {
    const { workspace, seat, client, base } = await signedInSeat(web, 'member');
    const author = await createMember(web.ctx.db, workspace, {
      user: await createUser(web.ctx.db, { name: 'Flo Flood' }),
    });
    const busy = await createRoom(web.ctx.db, workspace, { name: 'busy', members: [seat, author] });
    const quiet = await createRoom(web.ctx.db, workspace, { name: 'quiet', members: [seat] });
    const handle = seat.user.name.split(' ')[0]!.toLowerCase();
    await postMessages(
      web.ctx.db,
      Array.from({ length: 105 }, (_, i) => ({
        roomId: busy.id,
        workspaceId: workspace.id,
        authorKind: 'member' as const,
        authorMemberId: author.id,
        displayName: 'Flo Flood',
        body: i < 3 ? `ping @${handle}` : `flood ${i}`,
      })),
    );
    const page = (await client.get(base)).text;
    const link = (roomId: string) =>
      new RegExp(`data-room-id="${roomId}"[^]*?</a`).exec(page)?.[0] ?? '';
    expect(link(busy.id)).toContain('class="has-unread"');
    expect(link(busy.id)).toMatch(/data-count="100"\s*>99\+/);
    expect(link(quiet.id)).toMatch(/data-count="0"\s+hidden/);
    expect(/data-mentions[^]*?<\/a/.exec(page)?.[0]).toMatch(/data-count="3"\s*>3</);
  });
});
