import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
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
import { createIncomingKey, setIncomingKeyEnabled } from '@ferry/workspace';
import { createWebhooksInApp } from '../src/app.js';
import { createLiveKeyCache, type LiveKeyCache } from '../src/key-cache.js';

/**
 * `/wh/in/<key>/slack` (issue 44): Slack's answers for the same post as `/wh/in/<key>`. The real
 * @slack/webhook client sends to it and gets Slack's 200 `ok`; refusals are Slack's plain-text
 * codes (https://api.slack.com/changelog/2016-05-17-changes-to-errors-for-incoming-webhooks);
 * Apprise's `mmost://` shape (`<path>/hooks/<token>`, JSON with `text`, `username`, a null
 * `icon_url`) answers 200 too.
 */
describe('POST /wh/in/:key/slack', () => {
  let ctx: TestContext;
  let app: RunningApp;
  let limited: RunningApp;
  let keys: LiveKeyCache;
  let box: SecretBox;
  let workspace: Workspace;
  let admin: Member;
  let room: Room;

  beforeAll(async () => {
    ctx = await createTestContext();
    box = new SecretBox(ctx.config.APP_SECRET);
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
    limited = await startApp(
      createWebhooksInApp({ ...deps, settings: { WEBHOOK_RATE_LIMIT_PER_MINUTE: 2 } }, ctx.redis),
    );
    workspace = await createWorkspace(ctx.db);
    admin = await createMember(ctx.db, workspace, { role: 'admin' });
    room = await createRoom(ctx.db, workspace, { name: 'deploys', members: [admin] });
  });
  afterAll(async () => {
    await app?.close();
    await limited?.close();
    await keys?.close();
    await ctx?.close();
  });

  async function newKey(): Promise<{ id: string; rawKey: string }> {
    const { webhook, rawKey } = await createIncomingKey(ctx.db, box, {
      workspaceId: workspace.id,
      roomId: room.id,
      name: 'CI',
      createdBy: admin.id,
    });
    return { id: webhook.id, rawKey };
  }

  const slackUrl = (rawKey: string, base = app.url) => `${base}/wh/in/${rawKey}/slack`;

  async function messagesOf(keyId: string) {
    return ctx.db
      .selectFrom('messages')
      .select(['body', 'display_name', 'metadata'])
      .where('author_ref', '=', keyId)
      .orderBy('id')
      .execute();
  }

  async function refusal(res: Response): Promise<{ status: number; type: string; body: string }> {
    return {
      status: res.status,
      type: (res.headers.get('content-type') ?? '').split(';')[0]!,
      body: await res.text(),
    };
  }

  const send = (url: string, body: string, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body,
    });

  it('@slack/webhook sends text, blocks and an attachment: 200 `ok`, rendered as on /wh/in/<key>', async () => {
    const key = await newKey();
    const slack = new IncomingWebhook(slackUrl(key.rawKey));
    const first = await slack.send({
      text: 'Build <https://ci.example/42|build 42> *passed* :tada:',
      username: 'Jenkins',
      icon_emoji: ':robot_face:',
    });
    expect(first).toEqual({ text: 'ok' });
    const second = await slack.send({
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*Deploy* finished' } }],
      attachments: [{ color: 'good', title: 'v1.2.3', text: 'All green' }],
    });
    expect(second).toEqual({ text: 'ok' });
    const stored = await messagesOf(key.id);
    expect(stored).toHaveLength(2);
    expect(stored[0]).toMatchObject({
      body: 'Build [build 42](<https://ci.example/42>) **passed** 🎉',
      display_name: 'Jenkins',
      metadata: { webhook_id: key.id, format: 'slack', avatar_emoji: '🤖' },
    });
    expect(stored[1]!.body).toContain('**Deploy** finished');
    expect(stored[1]!.body).toContain('All green');
  });

  it("Apprise's mmost:// request (POST <path>/hooks/<token>): 200 `ok`, the token ignored", async () => {
    const key = await newKey();
    // What Apprise's NotifyMattermost.send() posts: text, icon_url (None unless images are on),
    // username, and a JSON Content-Type with its own User-Agent.
    const res = await fetch(`${slackUrl(key.rawKey)}/hooks/anything`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'User-Agent': 'Apprise' },
      body: JSON.stringify({ text: 'Backup finished', icon_url: null, username: 'Apprise' }),
    });
    expect(await refusal(res)).toEqual({ status: 200, type: 'text/plain', body: 'ok' });
    expect(await messagesOf(key.id)).toMatchObject([
      { body: 'Backup finished', display_name: 'Apprise' },
    ]);
  });

  it('the real Apprise CLI (Debian apprise, mmost://) sends and reports success', async () => {
    const key = await newKey();
    const { host } = new URL(app.url);
    // Apprise's Mattermost URL: mmost://host:port/<path>/<token>, posted to <path>/hooks/<token>;
    // before issue 44 it reported "Failed to send" on SPEC.md's 201 and exited 1.
    // Asynchronously: the app answering it runs in this process.
    const run = await promisify(execFile)(
      'apprise',
      ['-vv', '-b', 'Backup finished', `mmost://${host}/wh/in/${key.rawKey}/slack/anytoken`],
      { encoding: 'utf8', timeout: 30_000 },
    ).then(
      ({ stdout, stderr }) => ({ code: 0, output: `${stdout}${stderr}` }),
      (error: { code?: number | string; stdout?: string; stderr?: string }) => {
        if (error.code === 'ENOENT')
          throw new Error('apprise is not installed (apt-get install apprise)');
        return { code: error.code, output: `${error.stdout ?? ''}${error.stderr ?? ''}` };
      },
    );
    expect(run.code, run.output).toBe(0);
    expect(await messagesOf(key.id)).toMatchObject([{ body: 'Backup finished' }]);
  });

  it('a retry with the same Idempotency-Key answers `ok` again and posts once', async () => {
    const key = await newKey();
    const body = JSON.stringify({ text: 'Nightly export done' });
    for (let attempt = 0; attempt < 3; attempt++) {
      const res = await send(slackUrl(key.rawKey), body, {
        'Idempotency-Key': 'export-2026-12-06',
      });
      expect(await refusal(res)).toEqual({ status: 200, type: 'text/plain', body: 'ok' });
    }
    expect(await messagesOf(key.id)).toHaveLength(1);
  });

  it("answers Slack's codes in plain text: no_service, no_text, invalid_payload, msg_too_long, channel_not_found, payload_too_large", async () => {
    const key = await newKey();
    const url = slackUrl(key.rawKey);
    const cases: [string, Promise<Response>, number, string][] = [
      ['unknown key', send(slackUrl('whk_nope'), '{"text":"x"}'), 404, 'no_service'],
      ['not a key at all', send(slackUrl('%3Cscript%3E'), '{"text":"x"}'), 404, 'no_service'],
      ['no text', send(url, '{}'), 400, 'no_text'],
      ['blank text', send(url, '{"text":"   "}'), 400, 'no_text'],
      ['empty body', send(url, ''), 400, 'no_text'],
      ['bad JSON', send(url, '{"text":'), 400, 'invalid_payload'],
      ['a JSON array', send(url, '[1,2]'), 400, 'no_text'],
      [
        'wrong content type',
        fetch(url, { method: 'POST', headers: { 'Content-Type': 'text/xml' }, body: '<x/>' }),
        400,
        'invalid_payload',
      ],
      [
        'a bad field',
        send(url, JSON.stringify({ text: 'x', username: 7 })),
        400,
        'invalid_payload',
      ],
      [
        'over-long text',
        send(url, JSON.stringify({ text: 'x'.repeat(20_001) })),
        400,
        'msg_too_long',
      ],
      [
        'a channel the key cannot post to',
        send(url, JSON.stringify({ text: 'x', channel: '#nowhere' })),
        404,
        'channel_not_found',
      ],
      [
        'an oversized body',
        send(url, JSON.stringify({ text: 'x'.repeat(300 * 1024) })),
        413,
        'payload_too_large',
      ],
    ];
    for (const [what, pending, status, code] of cases) {
      expect({ what, ...(await refusal(await pending)) }).toEqual({
        what,
        status,
        type: 'text/plain',
        body: code,
      });
    }
    expect(await messagesOf(key.id)).toEqual([]);
  });

  it('a disabled key is no_service; @slack/webhook rejects with that answer', async () => {
    const key = await newKey();
    await setIncomingKeyEnabled(ctx.db, room.id, key.id, false);
    await keys.settle();
    const failure = await new IncomingWebhook(slackUrl(key.rawKey)).send({ text: 'x' }).then(
      () => undefined,
      (err: unknown) => err as { original?: { response?: unknown } },
    );
    expect(failure?.original?.response).toMatchObject({ status: 404, data: 'no_service' });
  });

  it('over the rate limit: 429 rate_limited with Retry-After, shared with /wh/in/<key>', async () => {
    const key = await newKey();
    expect((await send(`${limited.url}/wh/in/${key.rawKey}`, '{"body":"one"}')).status).toBe(201);
    expect((await send(slackUrl(key.rawKey, limited.url), '{"text":"two"}')).status).toBe(200);
    const res = await send(slackUrl(key.rawKey, limited.url), '{"text":"three"}');
    expect(await refusal(res)).toEqual({ status: 429, type: 'text/plain', body: 'rate_limited' });
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await messagesOf(key.id)).toHaveLength(2);
  });

  it('SPEC.md’s /wh/in/<key> still answers 201 {message_id}', async () => {
    const key = await newKey();
    const res = await send(`${app.url}/wh/in/${key.rawKey}`, '{"text":"plain"}');
    expect(res.status).toBe(201);
    const answer = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(answer)).toEqual(['message_id']);
    expect(typeof answer.message_id).toBe('string');
  });
});
