import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiscordAPIError, RateLimitError, WebhookClient } from 'discord.js';
import { SecretBox } from '@ferry/core';
import type { Member, Room, Workspace } from '@ferry/db';
import {
  createMember,
  createRoom,
  createTestContext,
  createWorkspace,
  solidPng,
  startApp,
  type RunningApp,
  type TestContext,
} from '@ferry/testing';
import { createIncomingKey, postMessage } from '@ferry/workspace';
import { createWebhooksInApp } from '../src/app.js';
import { createLiveKeyCache, type LiveKeyCache } from '../src/key-cache.js';

/**
 * The Discord-compatible endpoint (issue 44) against the real discord.js WebhookClient, given only
 * `rest.api`: what it sends, what it gets back, the errors it raises (Discord's codes), and
 * hostile input (multipart bombs, files past the caps, bad payload_json, another key's message).
 * The room page side (live edits and deletions, files shown) is services/all's
 * discord.browser.test.ts.
 */
/**
 * A multipart POST that declares 40 MB and sends a few bytes: the status that comes back while
 * the rest is still "on its way" (then the request is dropped).
 */
function declaredTooLong(url: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'multipart/form-data; boundary=b',
        'Content-Length': String(40 * 1024 * 1024),
      },
    });
    req.on('response', (res) => {
      resolve(res.statusCode);
      req.destroy();
    });
    req.on('error', reject);
    req.write('--b\r\n');
  });
}

describe('Discord-compatible endpoint /wh/in/<key>/discord', () => {
  let ctx: TestContext;
  let app: RunningApp;
  let keys: LiveKeyCache;
  let box: SecretBox;
  let workspace: Workspace;
  let admin: Member;
  let room: Room;
  const RATE = 40;

  beforeAll(async () => {
    ctx = await createTestContext();
    box = new SecretBox(ctx.config.APP_SECRET);
    keys = createLiveKeyCache(ctx.db, { databaseUrl: ctx.config.DATABASE_URL, logger: ctx.logger });
    const deps = {
      config: ctx.config,
      settings: { WEBHOOK_RATE_LIMIT_PER_MINUTE: RATE },
      db: ctx.db,
      logger: ctx.logger,
      redis: ctx.redis,
      keys,
    };
    app = await startApp(createWebhooksInApp(deps, ctx.redis));
    workspace = await createWorkspace(ctx.db);
    admin = await createMember(ctx.db, workspace, { role: 'admin' });
    room = await createRoom(ctx.db, workspace, { members: [admin] });
  });
  afterAll(async () => {
    await app?.close();
    await keys?.close();
    await ctx?.close();
  });

  async function newKey(name = 'CI'): Promise<string> {
    const created = await createIncomingKey(ctx.db, box, {
      workspaceId: workspace.id,
      roomId: room.id,
      name,
      createdBy: admin.id,
    });
    return created.rawKey;
  }

  const api = (rawKey: string) => `${app.url}/wh/in/${rawKey}/discord`;

  /** discord.js as a bot would use it: any id and token, only `rest.api` pointed at Ferry. */
  function client(rawKey: string): WebhookClient {
    // A 429 rejects instead of waiting and retrying forever (discord.js's default, as against
    // Discord), so a test that hits the limit ends.
    return new WebhookClient(
      { id: '1234567890', token: 'any-token' },
      { rest: { api: api(rawKey), rejectOnRateLimit: () => true, retries: 0, timeout: 10_000 } },
    );
  }

  const messageRow = (id: string) =>
    ctx.db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirst();

  it('sends text, embeds and files, then edits and deletes the message', async () => {
    const hook = client(await newKey());
    const png = solidPng(4, 3, [200, 30, 30]);
    const sent = await hook.send({
      content: 'Deploy **started** <@123>',
      username: 'Deploy bot',
      avatarURL: 'https://cdn.example.com/bot.png',
      embeds: [
        {
          title: 'Run 42',
          url: 'https://ci.example.com/runs/42',
          description: 'All 1,204 checks passed',
          color: 0x2eb886,
          fields: [{ name: 'Environment', value: 'production', inline: true }],
        },
      ],
      files: [
        { attachment: png, name: 'chart.png' },
        { attachment: Buffer.from('line 1\nline 2\n'), name: 'build.log' },
      ],
    });
    expect(sent.id).toMatch(/^msg_/);
    expect(sent.channel_id).toBe(room.id);
    expect(sent.content).toBe('Deploy **started** <@123>');
    expect(sent.embeds[0]?.title).toBe('Run 42');
    expect(sent.author.username).toBe('Deploy bot');
    expect(sent.author.bot).toBe(true);
    expect(Date.parse(sent.timestamp)).not.toBeNaN();
    expect(sent.edited_timestamp).toBeNull();
    expect(sent.attachments.map((a) => [a.filename, a.size, a.content_type])).toEqual([
      ['chart.png', png.length, 'image/png'],
      ['build.log', 14, 'application/octet-stream'],
    ]);
    expect(sent.attachments[0]!.url).toBe(
      `${ctx.config.PUBLIC_URL}/files/${sent.attachments[0]!.id}`,
    );

    const stored = await messageRow(sent.id);
    expect(stored?.display_name).toBe('Deploy bot');
    expect(stored?.body).toContain('Deploy **started** @123');
    expect(stored?.body).toContain('Run 42');
    const files = await ctx.db
      .selectFrom('message_files')
      .select(['name', 'content_type', 'byte_size'])
      .where('message_id', '=', sent.id)
      .execute();
    expect(files).toHaveLength(2);

    // fetchMessage, then an edit of the text that keeps the files (no `attachments` sent).
    expect((await hook.fetchMessage(sent.id)).content).toBe(sent.content);
    const edited = await hook.editMessage(sent.id, { content: 'Deploy **finished**' });
    expect(edited.content).toBe('Deploy **finished**');
    expect(edited.embeds[0]?.title).toBe('Run 42');
    expect(edited.attachments).toHaveLength(2);
    expect(edited.edited_timestamp).not.toBeNull();
    expect((await messageRow(sent.id))?.body).toContain('Deploy **finished**');

    // Keep only the image, add a file: Discord's `attachments` list says which stay.
    const reshaped = await hook.editMessage(sent.id, {
      attachments: [{ id: sent.attachments[0]!.id }] as never,
      files: [{ attachment: Buffer.from('x'), name: 'extra.txt' }],
    });
    expect(reshaped.attachments.map((a) => a.filename)).toEqual(['chart.png', 'extra.txt']);
    expect(
      await ctx.db
        .selectFrom('message_files')
        .select('name')
        .where('message_id', '=', sent.id)
        .orderBy('name')
        .execute(),
    ).toEqual([{ name: 'chart.png' }, { name: 'extra.txt' }]);

    await hook.deleteMessage(sent.id);
    expect(await messageRow(sent.id)).toBeUndefined();
    expect(
      await ctx.db.selectFrom('message_files').where('message_id', '=', sent.id).execute(),
    ).toEqual([]);
    // Gone: Discord's Unknown Message.
    await expect(hook.deleteMessage(sent.id)).rejects.toMatchObject({ code: 10008, status: 404 });

    const outbox = await ctx.db
      .selectFrom('outbox')
      .select(['type', 'payload'])
      .where('type', '=', 'message_changed')
      .execute();
    expect(outbox.map((row) => (row.payload as { change: string }).change)).toEqual([
      'updated',
      'updated',
      'deleted',
    ]);
  });

  it('answers 204 without ?wait=true, and a file alone is a message', async () => {
    const rawKey = await newKey();
    const res = await fetch(`${api(rawKey)}/v10/webhooks/1/t`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ content: 'no wait' }),
    });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    // The bare prefix is Execute Webhook too (senders that take one URL).
    const bare = await fetch(api(rawKey), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ content: 'bare' }),
    });
    expect(bare.status).toBe(204);

    const only = await client(rawKey).send({
      files: [{ attachment: Buffer.from('%PDF-1.4'), name: 'report.pdf' }],
    });
    expect(only.content).toBe('');
    const row = await messageRow(only.id);
    expect(row?.body).toBe('📎 report.pdf');
    expect((row?.metadata as { files_only?: boolean }).files_only).toBe(true);
  });

  it("refuses another key's message and a member's, as Discord refuses unknown messages", async () => {
    const mine = client(await newKey('mine'));
    const theirs = client(await newKey('theirs'));
    const sent = await mine.send({ content: 'mine' });
    const member = await postMessage(ctx.db, {
      roomId: room.id,
      workspaceId: workspace.id,
      authorKind: 'member',
      authorMemberId: admin.id,
      displayName: 'Ada',
      body: 'a member wrote this',
    });
    for (const id of [sent.id, member.id, 'msg_00000000000000000000000000', 'nope']) {
      const edit = theirs.editMessage(id, { content: 'hijacked' });
      await expect(edit).rejects.toBeInstanceOf(DiscordAPIError);
      await expect(edit).rejects.toMatchObject({ code: 10008, status: 404 });
      await expect(theirs.deleteMessage(id)).rejects.toMatchObject({ code: 10008, status: 404 });
      await expect(theirs.fetchMessage(id)).rejects.toMatchObject({ code: 10008 });
    }
    expect((await messageRow(sent.id))?.body).toBe('mine');
    expect((await messageRow(member.id))?.body).toBe('a member wrote this');
  });

  it('answers Discord errors: unknown webhook, empty message, bad payload_json, long content', async () => {
    const unknown = client('whk_not-a-real-key');
    await expect(unknown.send({ content: 'x' })).rejects.toMatchObject({
      code: 10015,
      status: 404,
    });

    const rawKey = await newKey();
    const hook = client(rawKey);
    await expect(hook.send({ embeds: [] })).rejects.toMatchObject({ code: 50006, status: 400 });
    await expect(hook.send({ content: 'x'.repeat(2001) })).rejects.toMatchObject({
      code: 50035,
      status: 400,
    });

    const url = `${api(rawKey)}/v10/webhooks/1/t?wait=true`;
    const form = new FormData();
    form.append('payload_json', '{"content": "unterminated');
    const bad = await fetch(url, { method: 'POST', body: form });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 50109 });

    const notObject = new FormData();
    notObject.append('payload_json', '["content"]');
    const list = await fetch(url, { method: 'POST', body: notObject });
    expect(list.status).toBe(400);
    expect(await list.json()).toMatchObject({ code: 50035 });

    const wrongType = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ content: 42, embeds: 'x' }),
    });
    expect(wrongType.status).toBe(400);
    const answer = (await wrongType.json()) as { code: number; errors: Record<string, unknown> };
    expect(answer.code).toBe(50035);
    const tree = answer.errors;
    expect(Object.keys(tree)).toEqual(['content', 'embeds']);

    const xml = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'text/xml' },
      body: '<content/>',
    });
    expect(xml.status).toBe(415);
    expect(await xml.json()).toMatchObject({ code: 0 });
  });

  it('refuses files past the caps and multipart bombs with a clean 4xx', async () => {
    const rawKey = await newKey();
    const url = `${api(rawKey)}/v10/webhooks/1/t?wait=true`;
    const post = (body: FormData | string, headers: Record<string, string> = {}) =>
      fetch(url, { method: 'POST', body, headers });
    const count = async () =>
      Number(
        (
          await ctx.db
            .selectFrom('messages')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('room_id', '=', room.id)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();

    // One file over 8 MB.
    const big = new FormData();
    big.append('payload_json', JSON.stringify({ content: 'big' }));
    big.append('files[0]', new Blob([Buffer.alloc(8 * 1024 * 1024 + 1)]), 'big.bin');
    const oneTooBig = await post(big);
    expect(oneTooBig.status).toBe(413);
    expect(await oneTooBig.json()).toMatchObject({ code: 40005 });

    // Four files under 8 MB each, over 25 MB together.
    const many = new FormData();
    many.append('payload_json', JSON.stringify({ content: 'many' }));
    for (let i = 0; i < 4; i++) {
      many.append(`files[${i}]`, new Blob([Buffer.alloc(7 * 1024 * 1024)]), `part${i}.bin`);
    }
    const total = await post(many);
    expect(total.status).toBe(413);
    expect(((await total.json()) as { message: string }).message).toContain('25 MB');

    // Eleven files (Discord's limit is ten).
    const eleven = new FormData();
    for (let i = 0; i < 11; i++) eleven.append(`files[${i}]`, new Blob(['x']), `f${i}.txt`);
    expect((await post(eleven)).status).toBe(413);

    // Thousands of tiny parts, a huge field, an unknown file part, a cut-off body, no boundary.
    const parts = new FormData();
    for (let i = 0; i < 5_000; i++) parts.append(`f${i}`, 'x');
    const bomb = await post(parts);
    expect(bomb.status).toBe(400);
    expect(((await bomb.json()) as { code: number }).code).toBe(0);

    const huge = new FormData();
    huge.append('payload_json', JSON.stringify({ content: 'x'.repeat(70 * 1024) }));
    expect((await post(huge)).status).toBe(413);

    const unknownPart = new FormData();
    unknownPart.append('payload_json', '{"content":"a"}');
    unknownPart.append('avatar', new Blob(['x']), 'x.png');
    expect((await post(unknownPart)).status).toBe(400);

    const boundary = 'XyZ';
    const cut =
      `--${boundary}\r\nContent-Disposition: form-data; name="files[0]"; filename="a.txt"\r\n` +
      `Content-Type: text/plain\r\n\r\nhalf a file`;
    expect(
      (await post(cut, { 'Content-Type': `multipart/form-data; boundary=${boundary}` })).status,
    ).toBe(400);
    expect((await post('x', { 'Content-Type': 'multipart/form-data' })).status).toBe(400);

    // A declared length past the cap is refused before a byte of it is read.
    expect(await declaredTooLong(url)).toBe(413);

    expect(await count()).toBe(before);
  });

  it('stores hostile names and urls as data: never a path, never markup that runs', async () => {
    const hook = client(await newKey());
    const sent = await hook.send({
      content: '<script>alert(1)</script> [x](javascript:alert(1))',
      username: '<img src=x onerror=alert(1)>',
      embeds: [
        {
          title: '<b>t</b>',
          url: 'javascript:alert(1)',
          author: { name: 'a', url: 'javascript:alert(2)' },
          image: { url: 'javascript:alert(3)' },
          footer: { text: '<svg onload=alert(4)>' },
        },
      ],
      files: [
        {
          attachment: Buffer.from('<html><script>alert(5)</script></html>'),
          name: '../../evil<img src=x onerror=alert(1)>.html',
        },
        {
          attachment: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(6)"/>'),
          name: 'x.svg',
        },
        { attachment: Buffer.from('x'), name: 'a\u202Egnp.exe' },
      ],
    });
    expect(sent.attachments.map((a) => [a.filename, a.content_type])).toEqual([
      ['evil<img src=x onerror=alert(1)>.html', 'application/octet-stream'],
      ['x.svg', 'application/octet-stream'],
      ['agnp.exe', 'application/octet-stream'],
    ]);
    const row = await messageRow(sent.id);
    // The body is markdown, kept as sent and rendered (links to http(s) and mailto only, markup
    // escaped) by web: services/all discord.browser.test.ts checks the page. The sender's name
    // is stored as text.
    expect(row?.display_name).toBe('<img src=x onerror=alert(1)>');
  });

  it("answers 429 as Discord does, and discord.js's rejectOnRateLimit ends the call", async () => {
    const rawKey = await newKey();
    const url = `${api(rawKey)}/v10/webhooks/1/t`;
    let res: Response | undefined;
    for (let i = 0; i <= RATE; i++) {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ content: `post ${i}` }),
      });
    }
    expect(res!.status).toBe(429);
    const retryAfter = Number(res!.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(res!.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(res!.headers.get('x-ratelimit-reset-after'))).toBe(retryAfter);
    expect(await res!.json()).toEqual({
      message: 'You are being rate limited.',
      retry_after: retryAfter,
      global: false,
    });
    const limited = client(rawKey).send({ content: 'one more' });
    await expect(limited).rejects.toBeInstanceOf(RateLimitError);
  });
});
