import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IncomingWebhook } from '@slack/webhook';
import { SecretBox } from '@ferry/core';
import type { Member, Room, Workspace } from '@ferry/db';
import {
  createMember,
  createRoom,
  createTestContext,
  createWorkspace,
  startApp,
  type RunningApp,
  type TestContext,
} from '@ferry/testing';
import { createIncomingKey } from '@ferry/workspace';
import { createWebhooksInApp } from '../src/app.js';
import { createLiveKeyCache, type LiveKeyCache } from '../src/key-cache.js';

/**
 * POST /wh/in/:key with the payloads other systems already send: the real @slack/webhook client
 * (text, blocks, attachments, icon), Slack/Mattermost form bodies, and the recorded payloads of
 * test/payloads/ (their vendor pages are named in decoders.test.ts). SPEC.md's answers stay.
 */
describe('incoming payload families over HTTP', () => {
  let ctx: TestContext;
  let app: RunningApp;
  let keys: LiveKeyCache;
  let workspace: Workspace;
  let admin: Member;
  let room: Room;
  let rawKey: string;
  let keyId: string;

  beforeAll(async () => {
    ctx = await createTestContext();
    keys = createLiveKeyCache(ctx.db, { databaseUrl: ctx.config.DATABASE_URL, logger: ctx.logger });
    const deps = {
      config: ctx.config,
      settings: { WEBHOOK_RATE_LIMIT_PER_MINUTE: 1_000 },
      db: ctx.db,
      logger: ctx.logger,
      redis: ctx.redis,
      keys,
    };
    app = await startApp(createWebhooksInApp(deps, ctx.redis));
    workspace = await createWorkspace(ctx.db);
    admin = await createMember(ctx.db, workspace, { role: 'admin' });
    room = await createRoom(ctx.db, workspace, { name: 'deploys', members: [admin] });
    const created = await createIncomingKey(ctx.db, new SecretBox(ctx.config.APP_SECRET), {
      workspaceId: workspace.id,
      roomId: room.id,
      name: 'CI',
      createdBy: admin.id,
    });
    rawKey = created.rawKey;
    keyId = created.webhook.id;
  });
  afterAll(async () => {
    await app?.close();
    await keys?.close();
    await ctx?.close();
  });

  const url = () => `${app.url}/wh/in/${rawKey}`;

  async function stored(messageId: string) {
    const message = await ctx.db
      .selectFrom('messages')
      .selectAll()
      .where('id', '=', messageId)
      .executeTakeFirstOrThrow();
    const original = await ctx.db
      .selectFrom('message_payloads')
      .selectAll()
      .where('message_id', '=', messageId)
      .executeTakeFirst();
    return { message, original };
  }

  /** What the Slack client resolves with: the answer's body as it parsed it. */
  const idOf = (result: { text: unknown }): string =>
    (result.text as { message_id: string }).message_id;

  async function post(body: string, contentType: string): Promise<Response> {
    return fetch(url(), { method: 'POST', headers: { 'Content-Type': contentType }, body });
  }

  async function created(res: Response): Promise<string> {
    expect(res.status).toBe(201);
    return ((await res.json()) as { message_id: string }).message_id;
  }

  it('Slack client, text: mrkdwn links, bold, emoji and @here render; the payload is kept', async () => {
    const slack = new IncomingWebhook(url());
    const id = idOf(
      await slack.send({
        text: 'Build <https://ci.example/42|build 42> *passed* :tada: <!here>',
        username: 'Jenkins',
        icon_emoji: ':robot_face:',
      }),
    );
    const { message, original } = await stored(id);
    expect(message).toMatchObject({
      body: 'Build [build 42](<https://ci.example/42>) **passed** 🎉 @here',
      display_name: 'Jenkins',
      author_kind: 'webhook',
      metadata: { webhook_id: keyId, format: 'slack', avatar_emoji: '🤖' },
    });
    expect(original).toMatchObject({ format: 'json', truncated: false });
    expect(JSON.parse(original!.payload)).toMatchObject({ icon_emoji: ':robot_face:' });
    // `<!here>` notifies as an @-mention does: the room's seats, the key's creator among them.
    const mentions = await ctx.db
      .selectFrom('mentions')
      .select(['member_id', 'reason'])
      .where('message_id', '=', id)
      .execute();
    expect(mentions).toEqual([{ member_id: admin.id, reason: 'mention' }]);
  });

  it('Slack client, blocks only and attachments only: 201 with what a reader needs', async () => {
    const slack = new IncomingWebhook(url(), { icon_url: 'https://ci.example/bot.png' });
    const blocks = idOf(
      await slack.send({
        text: 'fallback for notifications',
        blocks: [
          { type: 'header', text: { type: 'plain_text', text: 'Deploy 42' } },
          {
            type: 'section',
            text: { type: 'mrkdwn', text: 'Shipped to *production*' },
            fields: [
              { type: 'mrkdwn', text: '*Env*\nprod' },
              { type: 'mrkdwn', text: '*By*\nada' },
            ],
          },
          {
            type: 'actions',
            elements: [
              {
                type: 'button',
                text: { type: 'plain_text', text: 'Open run' },
                url: 'https://ci.example/runs/42',
              },
            ],
          },
        ],
      }),
    );
    expect((await stored(blocks)).message).toMatchObject({
      body: '### Deploy 42\n\nShipped to **production**\n\n- **Env** prod\n- **By** ada\n\n[Open run](<https://ci.example/runs/42>)',
      metadata: { avatar_url: 'https://ci.example/bot.png' },
    });

    const attachments = idOf(
      await slack.send({
        attachments: [
          {
            color: 'danger',
            title: 'Build 43 failed',
            title_link: 'https://ci.example/43',
            text: '`npm test` exited 1',
            fields: [{ title: 'Branch', value: 'main', short: true }],
            footer: 'CI',
          },
        ],
      }),
    );
    expect((await stored(attachments)).message.body).toBe(
      '> 🟥 **[Build 43 failed](<https://ci.example/43>)**\n>\n> `npm test` exited 1\n>\n> - **Branch**: main\n>\n> _CI_',
    );
  });

  it('Slack client: blocks that render to nothing are a 422 naming body', async () => {
    const slack = new IncomingWebhook(url());
    await expect(slack.send({ blocks: [] })).rejects.toThrow(/422/);
    const res = await post(
      JSON.stringify({ blocks: [{ type: 'input', element: {} }] }),
      'application/json',
    );
    expect(res.status).toBe(422);
    const body = (await res.json()) as { error: { code: string; fields: Record<string, string> } };
    expect(body.error.code).toBe('validation_failed');
    expect(body.error.fields.body).toContain('"blocks"');
  });

  it('takes payload= form bodies (Slack, Mattermost; thread_ts ignored) and plain form fields', async () => {
    const slackForm = new URLSearchParams({
      // thread_ts: a reply in a Slack thread; there are no threads here, so it is ignored.
      payload: JSON.stringify({
        text: 'From *curl* :white_check_mark:',
        channel: '#deploys',
        thread_ts: '1503435956.000247',
      }),
    });
    const id = await created(await post(slackForm.toString(), 'application/x-www-form-urlencoded'));
    const { message, original } = await stored(id);
    expect(message).toMatchObject({ body: 'From **curl** ✅', room_id: room.id });
    expect(original).toMatchObject({ format: 'form' });
    expect(JSON.parse(original!.payload)).toEqual({
      text: 'From *curl* :white_check_mark:',
      channel: '#deploys',
      thread_ts: '1503435956.000247',
    });

    const fields = await created(
      await post('body=Plain+fields&sender=Cron', 'application/x-www-form-urlencoded'),
    );
    expect((await stored(fields)).message).toMatchObject({
      body: 'Plain fields',
      display_name: 'Cron',
    });
    // `curl -d '{…}'` without -H sends JSON under the form type.
    const curlD = await created(
      await post('{"text":"curl -d"}', 'application/x-www-form-urlencoded'),
    );
    expect((await stored(curlD)).message.body).toBe('curl -d');
  });

  it('answers 415 for other content types and 400 for a payload field that is not JSON', async () => {
    for (const type of ['text/plain', 'multipart/form-data; boundary=x', 'application/xml']) {
      const res = await post('{"body":"x"}', type);
      expect(res.status).toBe(415);
      const { error } = (await res.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe('unsupported_media_type');
      expect(error.message).toContain('application/json');
      expect(error.message).toContain('payload');
    }
    const bad = await post('payload=%7Bnot-json', 'application/x-www-form-urlencoded');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('invalid_json');
  });

  it('caps the rendered text at 20,000 characters and the stored payload at 64 KB', async () => {
    const over = await post(
      JSON.stringify({ text: `${'*x* '.repeat(4_000)}` }),
      'application/json',
    );
    // 16,000 characters sent, 24,000 once each *x* is rendered as **x**.
    expect(over.status).toBe(422);
    const { error } = (await over.json()) as { error: { fields: Record<string, string> } };
    expect(error.fields.body).toContain('20,000 characters once rendered');

    const big = JSON.stringify({ body: 'ok', padding: 'p'.repeat(70_000) });
    const id = await created(await post(big, 'application/json'));
    const { original } = await stored(id);
    expect(original).toMatchObject({ truncated: true });
    expect(original!.payload).toHaveLength(64 * 1024);
  });

  it.each([
    ['mattermost', 'mattermost', '✅ 0'],
    ['mattermost-attachment', 'slack', '[Example Attachment]'],
    ['discord', 'discord', '**[Title](<https://google.com/>)**'],
    [
      'teams-messagecard',
      'teams',
      '[Learn More](<https://learn.microsoft.com/outlook/actionable-messages>)',
    ],
    ['teams-adaptive', 'teams', '[View](<https://adaptivecards.io>)'],
  ])('recorded %s payload: 201, rendered as %s', async (name, family, expected) => {
    const payload = readFileSync(new URL(`./payloads/${name}.json`, import.meta.url), 'utf8');
    const withRoom =
      name === 'mattermost'
        ? JSON.stringify({ ...(JSON.parse(payload) as object), channel: 'deploys' })
        : payload;
    const id = await created(await post(withRoom, 'application/json'));
    const { message, original } = await stored(id);
    expect(message.body).toContain(expected);
    expect(message.metadata).toMatchObject({ format: family });
    expect(original?.payload).toBe(withRoom);
  });
});
