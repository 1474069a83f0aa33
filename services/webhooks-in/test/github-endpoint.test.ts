import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import examples from '@octokit/webhooks-examples';
import { Webhooks } from '@octokit/webhooks';
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
import { createIncomingKey, setIncomingKeyGithubSecret } from '@ferry/workspace';
import { createWebhooksInApp } from '../src/app.js';
import { createLiveKeyCache, type LiveKeyCache } from '../src/key-cache.js';

/**
 * `/wh/in/<key>/github` (issue 44): GitHub's deliveries, from @octokit/webhooks-examples (the
 * payloads GitHub documents), signed by @octokit/webhooks as GitHub signs them, sent with the
 * headers GitHub sends (X-GitHub-Event, X-GitHub-Delivery, X-Hub-Signature-256).
 */

type Payload = Record<string, unknown>;

/** The first documented example of an event, with this action when one is named. */
function example(event: string, action?: string): Payload {
  const found = (examples as unknown as { name: string; examples: Payload[] }[])
    .find((entry) => entry.name === event)
    ?.examples.find((payload) => action === undefined || payload.action === action);
  if (!found) throw new Error(`@octokit/webhooks-examples has no ${event} ${action ?? ''}`);
  return structuredClone(found);
}

/** The documented push with its one commit, made three (ids and messages of their own). */
function pushOfThree(): Payload {
  const push = structuredClone(
    (examples as unknown as { name: string; examples: Payload[] }[])
      .find((entry) => entry.name === 'push')!
      .examples.find((payload) => (payload.commits as unknown[]).length === 1)!,
  );
  const [commit] = push.commits as Payload[];
  push.commits = ['Initial commit', 'Fix typo\n\nLonger body', 'Add CI'].map((message, i) => ({
    ...commit,
    id: `${i}`.repeat(40),
    message,
  }));
  return push;
}

describe('POST /wh/in/:key/github', () => {
  let ctx: TestContext;
  let app: RunningApp;
  let keys: LiveKeyCache;
  let box: SecretBox;
  let workspace: Workspace;
  let admin: Member;
  let room: Room;
  const secret = 'It’s a Secret to Everybody';
  const github = new Webhooks({ secret });

  beforeAll(async () => {
    ctx = await createTestContext();
    box = new SecretBox(ctx.config.APP_SECRET);
    keys = createLiveKeyCache(ctx.db, { databaseUrl: ctx.config.DATABASE_URL, logger: ctx.logger });
    app = await startApp(
      createWebhooksInApp(
        {
          config: ctx.config,
          settings: { WEBHOOK_RATE_LIMIT_PER_MINUTE: 1_000 },
          db: ctx.db,
          logger: ctx.logger,
          redis: ctx.redis,
          keys,
        },
        ctx.redis,
      ),
    );
    workspace = await createWorkspace(ctx.db);
    admin = await createMember(ctx.db, workspace, { role: 'admin' });
    room = await createRoom(ctx.db, workspace, { name: 'repo', members: [admin] });
  });
  afterAll(async () => {
    await app?.close();
    await keys?.close();
    await ctx?.close();
  });

  async function newKey(withSecret = true): Promise<{ id: string; rawKey: string }> {
    const { webhook, rawKey } = await createIncomingKey(ctx.db, box, {
      workspaceId: workspace.id,
      roomId: room.id,
      name: 'GitHub',
      createdBy: admin.id,
    });
    if (withSecret) {
      await setIncomingKeyGithubSecret(ctx.db, box, room.id, webhook.id, secret);
      await keys.settle();
    }
    return { id: webhook.id, rawKey };
  }

  async function deliver(
    rawKey: string,
    event: string,
    payload: Payload | string,
    options: { delivery?: string; signature?: string | null; contentType?: string } = {},
  ): Promise<Response> {
    const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
    const signature = options.signature === undefined ? await github.sign(body) : options.signature;
    return fetch(`${app.url}/wh/in/${rawKey}/github`, {
      method: 'POST',
      headers: {
        'Content-Type': options.contentType ?? 'application/json',
        'User-Agent': 'GitHub-Hookshot/044aadd',
        'X-GitHub-Event': event,
        'X-GitHub-Delivery': options.delivery ?? randomUUID(),
        ...(signature === null ? {} : { 'X-Hub-Signature-256': signature }),
      },
      body,
    });
  }

  async function messagesOf(keyId: string) {
    return ctx.db
      .selectFrom('messages')
      .select(['id', 'body', 'display_name', 'metadata'])
      .where('author_ref', '=', keyId)
      .orderBy('id')
      .execute();
  }

  async function posted(res: Response): Promise<string> {
    expect(res.status).toBe(200);
    return ((await res.json()) as { message_id: string }).message_id;
  }

  it('renders each documented event, signed: repo, actor, what happened, a link', async () => {
    const key = await newKey();
    const cases: [string, Payload, string[]][] = [
      [
        'push',
        pushOfThree(),
        [
          '**Codertocat** pushed [3 commits](<https://github.com/Codertocat/Hello-World/commit/',
          ') to **master**',
          '- [`0000000`](<https://github.com/Codertocat/Hello-World/commit/6113728f27ae82c7b1a177c8d03f9e96e0adf246>) Initial commit — Codertocat',
          '- [`1111111`]',
          ' Fix typo — Codertocat',
        ],
      ],
      [
        'pull_request',
        example('pull_request', 'opened'),
        [
          '**Codertocat** opened pull request [#2 Update the README with new information.](<https://github.com/Codertocat/Hello-World/pull/2>)',
          '> This is a pretty simple change that we need to pull into master.',
        ],
      ],
      [
        'issues',
        example('issues', 'opened'),
        [
          '**Codertocat** opened issue [#1 Spelling error in the README file](<https://github.com/Codertocat/Hello-World/issues/1>)',
        ],
      ],
      [
        'issue_comment',
        example('issue_comment', 'created'),
        [
          '**Codertocat** [commented](<https://github.com/Codertocat/Hello-World/issues/1#issuecomment-492700400>) on issue [#1 Spelling error in the README file]',
          "> You are totally right! I'll get this fixed right away.",
        ],
      ],
      [
        'release',
        example('release', 'published'),
        [
          '**Codertocat** published release [0.0.1](<https://github.com/Codertocat/Hello-World/releases/tag/0.0.1>)',
        ],
      ],
      [
        'workflow_run',
        example('workflow_run', 'completed'),
        ['[workflow **', '](<https://github.com/octo-org/octo-repo/actions/runs/'],
      ],
      [
        'check_run',
        example('check_run', 'completed'),
        [
          '[check **Octocoders-linter**](<https://github.com/Codertocat/Hello-World/runs/128620228>)',
          'on **changes**',
        ],
      ],
    ];
    for (const [event, payload, parts] of cases) {
      const id = await posted(await deliver(key.rawKey, event, payload));
      const message = await ctx.db
        .selectFrom('messages')
        .select(['body', 'display_name', 'metadata'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(message.body, event).toMatch(
        /^\\\[\[[\w./-]+\]\(<https:\/\/github\.com\/[\w./-]+>\)\\\] /,
      );
      for (const part of parts) expect(message.body, event).toContain(part);
      expect(message).toMatchObject({ display_name: 'GitHub', metadata: { format: 'github' } });
    }
    expect(await messagesOf(key.id)).toHaveLength(cases.length);
  });

  it('the sender’s GitHub avatar becomes the message’s avatar', async () => {
    const key = await newKey();
    const payload = example('issues', 'opened');
    await posted(await deliver(key.rawKey, 'issues', payload));
    const [message] = await messagesOf(key.id);
    expect(message?.metadata).toMatchObject({
      avatar_url: (payload.sender as { avatar_url: string }).avatar_url,
    });
  });

  it('ping: 200, saying where events go, and nothing posted', async () => {
    const key = await newKey();
    const res = await deliver(key.rawKey, 'ping', example('ping'));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, posted: false });
    expect(await messagesOf(key.id)).toEqual([]);
  });

  it('events and actions that are not posted: 204, nothing stored', async () => {
    const key = await newKey();
    for (const [event, payload] of [
      ['star', example('star')],
      ['pull_request', example('pull_request', 'labeled')],
      ['issues', example('issues', 'edited')],
      ['release', example('release', 'created')],
      ['workflow_run', example('workflow_run', 'requested')],
      ['check_run', example('check_run', 'created')],
    ] as const) {
      const res = await deliver(key.rawKey, event, payload);
      expect({ event, status: res.status, body: await res.text() }).toEqual({
        event,
        status: 204,
        body: '',
      });
    }
    expect(await messagesOf(key.id)).toEqual([]);
  });

  it('a redelivery (same X-GitHub-Delivery) answers the same message and posts once', async () => {
    const key = await newKey();
    const delivery = randomUUID();
    const payload = example('issues', 'opened');
    const first = await posted(await deliver(key.rawKey, 'issues', payload, { delivery }));
    const again = await posted(await deliver(key.rawKey, 'issues', payload, { delivery }));
    expect(again).toBe(first);
    expect(await messagesOf(key.id)).toHaveLength(1);
  });

  it('refuses forged, missing and other-secret signatures with 401 and a clear error', async () => {
    const key = await newKey();
    const payload = example('issues', 'opened');
    const body = JSON.stringify(payload);
    const otherSecret = await new Webhooks({ secret: 'not the secret' }).sign(body);
    const tampered = JSON.stringify({ ...payload, action: 'closed' });
    const cases: [string, Response][] = [
      ['missing', await deliver(key.rawKey, 'issues', payload, { signature: null })],
      ['other secret', await deliver(key.rawKey, 'issues', payload, { signature: otherSecret })],
      ['garbage', await deliver(key.rawKey, 'issues', payload, { signature: 'sha256=zz' })],
      [
        'sha1 only',
        await deliver(key.rawKey, 'issues', payload, { signature: `sha1=${'0'.repeat(40)}` }),
      ],
      // Signed, then changed on the way: the signature is over the bytes sent.
      [
        'tampered body',
        await deliver(key.rawKey, 'issues', tampered, { signature: await github.sign(body) }),
      ],
    ];
    for (const [what, res] of cases) {
      const answer = (await res.json()) as { error: { code: string; message: string } };
      expect({ what, status: res.status, code: answer.error.code }).toEqual({
        what,
        status: 401,
        code: 'unauthorized',
      });
      expect(answer.error.message).toMatch(/X-Hub-Signature-256/);
    }
    expect(await messagesOf(key.id)).toEqual([]);
  });

  it('without a secret on the key, unsigned deliveries are taken; removing the secret allows them again', async () => {
    const key = await newKey(false);
    await posted(
      await deliver(key.rawKey, 'issues', example('issues', 'opened'), { signature: null }),
    );
    await setIncomingKeyGithubSecret(ctx.db, box, room.id, key.id, secret);
    await keys.settle();
    const refused = await deliver(key.rawKey, 'issues', example('issues', 'opened'), {
      signature: null,
    });
    expect(refused.status).toBe(401);
    await setIncomingKeyGithubSecret(ctx.db, box, room.id, key.id, null);
    await keys.settle();
    await posted(
      await deliver(key.rawKey, 'issues', example('issues', 'reopened'), { signature: null }),
    );
    expect(await messagesOf(key.id)).toHaveLength(2);
  });

  it('the secret is stored sealed, never in clear', async () => {
    const key = await newKey();
    const row = await ctx.db
      .selectFrom('incoming_webhooks')
      .selectAll()
      .where('id', '=', key.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(box.decrypt(row.github_secret_sealed!)).toBe(secret);
  });

  it('takes the application/x-www-form-urlencoded content type GitHub also offers', async () => {
    const key = await newKey();
    const form = new URLSearchParams({ payload: JSON.stringify(example('issues', 'opened')) });
    const id = await posted(
      await deliver(key.rawKey, 'issues', form.toString(), {
        contentType: 'application/x-www-form-urlencoded',
      }),
    );
    expect(id).toMatch(/\S/);
  });

  it('hostile input gets a clean 4xx, never a 500', async () => {
    const key = await newKey();
    const url = `${app.url}/wh/in/${key.rawKey}/github`;
    const cases: [string, Response, number][] = [
      ['unknown key', await deliver('whk_nope', 'issues', example('issues', 'opened')), 404],
      ['bad JSON', await deliver(key.rawKey, 'issues', '{"action":'), 400],
      ['a JSON array', await deliver(key.rawKey, 'issues', '[1]'), 400],
      // @octokit/webhooks will not sign an empty body; GitHub never sends one. Signed by hand.
      [
        'an empty body',
        await deliver(key.rawKey, 'issues', '', {
          signature: `sha256=${createHmac('sha256', secret).update('').digest('hex')}`,
        }),
        400,
      ],
      ['no event header', await fetch(url, { method: 'POST', body: '{}' }), 401],
      ['a bad event name', await deliver(key.rawKey, '<script>', example('issues', 'opened')), 400],
      [
        'a wrong content type',
        await deliver(key.rawKey, 'issues', '<x/>', { contentType: 'text/xml' }),
        415,
      ],
      ['an oversized body', await deliver(key.rawKey, 'push', 'x'.repeat(1_100_000)), 413],
    ];
    for (const [what, res, status] of cases) {
      expect({ what, status: res.status }).toEqual({ what, status });
    }
    const unsigned = await newKey(false);
    const noEvent = await fetch(`${app.url}/wh/in/${unsigned.rawKey}/github`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(noEvent.status).toBe(400);
    expect(((await noEvent.json()) as { error: { message: string } }).error.message).toMatch(
      /X-GitHub-Event/,
    );
    expect(await messagesOf(key.id)).toEqual([]);
  });

  it('HTML and javascript: links in every field stay text: no raw tag, no javascript: link', async () => {
    const key = await newKey();
    const evil = '<img src=x onerror=alert(1)> [x](javascript:alert(1)) <script>1</script>';
    const push = pushOfThree();
    push.ref = `refs/heads/${evil}`;
    push.compare = 'javascript:alert(1)';
    (push.repository as Payload).full_name = evil;
    (push.repository as Payload).html_url = 'javascript:alert(1)';
    (push.sender as Payload).login = evil;
    for (const commit of push.commits as Payload[]) {
      commit.message = evil;
      commit.url = 'javascript:alert(1)';
    }
    const pr = example('pull_request', 'opened');
    Object.assign(pr.pull_request as Payload, {
      title: evil,
      body: evil,
      html_url: 'JaVaScRiPt:alert(1)',
    });
    const release = example('release', 'published');
    Object.assign(release.release as Payload, {
      name: evil,
      tag_name: evil,
      html_url: ' javascript:x',
    });
    for (const [event, payload] of [
      ['push', push],
      ['pull_request', pr],
      ['release', release],
    ] as const) {
      await posted(await deliver(key.rawKey, event, payload));
    }
    for (const { body } of await messagesOf(key.id)) {
      // Every `<` but our own http(s) link destinations is escaped (no raw tag reaches the
      // renderer), and no link targets javascript:.
      expect(body.replace(/\]\(<https?:\/\/[^\s<>]+>\)/g, '')).not.toMatch(/(?<!\\)</);
      expect(body).not.toMatch(/(?<!\\)\]\(\s*<?\s*javascript:/i);
      expect(body).toContain('\\<img src=x onerror=alert(1)\\>');
    }
  });
});
