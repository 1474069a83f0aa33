import type { IncomingHttpHeaders } from 'node:http';
import { createFerryClient } from '@ferry/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { SecretBox } from '@ferry/core';
import { loadDispatchSettings } from '@ferry/dispatch';
import {
  createGitHubClient,
  recordInstallation,
  saveAuthorization,
  setDispatchIdentity,
  setRepoSwitches,
  syncRepos,
  type GitHubClient,
} from '@ferry/github';
import {
  createApiToken,
  createFeedback,
  createMember,
  createWorkspace,
  Receiver,
} from '@ferry/testing';
import { FakeGitHub } from '@ferry/testing/fake-github';
import {
  createEndpoint,
  eventEnvelopeSchema,
  isEventType,
  validateEndpoint,
  type EventData,
  type EventType,
} from '@ferry/workspace';
import { startFerry, type FerryHarness } from './support/ferry.js';

/**
 * dispatch.* end to end on `pnpm start`'s process (startAll) against the fake GitHub: a ticket
 * dispatched through POST /api/v1/feedback/:id/dispatch runs to a PR and completes, another fails;
 * the dispatch worker's steps owe the events, the relay and webhooks-out send them, and two
 * loopback receivers verify each with the Standard Webhooks library and the catalog's schema.
 */
describe('dispatch events delivered from real dispatches', () => {
  let fake: FakeGitHub;
  let web: FerryHarness;
  let client: GitHubClient;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    fake = await new FakeGitHub().start();
    fake.addUser('ada-gh');
    fake.addInstallation({
      account: 'acme',
      repos: [{ name: 'shop', defaultBranch: 'main' }],
      users: ['ada-gh'],
    });
    fake.callbackUrl = 'http://ferry.test/github/callback';
    web = await startFerry({
      ...fake.env(),
      DISPATCH_POLL_MS: '40',
      DISPATCH_POLL_MAX_MS: '200',
      DISPATCH_RETRY_MS: '50',
      ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
      WEBHOOK_SWEEP_INTERVAL_MS: '300',
    });
    const settings = loadDispatchSettings(web.ctx.env);
    if (!settings.github.configured) throw new Error('fake GitHub env not applied');
    client = createGitHubClient(settings.github.app);
  });
  afterAll(async () => {
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await web?.close();
    await fake?.close();
  });

  /** The member's user token, through the fake's OAuth flow (as world.ts in services/dispatch). */
  async function userTokens(login: string) {
    fake.actAs(login);
    const redirect = 'http://ferry.test/github/callback';
    const answer = await fetch(client.authorizeUrl('state-1', redirect), { redirect: 'manual' });
    const code = new URL(answer.headers.get('location')!).searchParams.get('code')!;
    return client.exchangeCode(code, redirect);
  }

  function stringHeaders(headers: IncomingHttpHeaders): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [key, value] of Object.entries(headers)) {
      if (typeof value === 'string') out[key] = value;
    }
    return out;
  }

  it('sends started, pr_opened, completed and failed once to each subscribed endpoint', async () => {
    const { db } = web.ctx;
    const box = new SecretBox(web.ctx.config.APP_SECRET);
    const workspace = await createWorkspace(db);
    const owner = await createMember(db, workspace, { role: 'owner' });
    const tokens = await userTokens('ada-gh');
    const installationId = (await client.userInstallations(tokens.token))[0]!.id;
    const installation = await recordInstallation(db, {
      workspaceId: workspace.id,
      installationId,
      accountLogin: 'acme',
      memberId: owner.id,
    });
    const repos = await syncRepos(db, client, installation);
    const shop = (await setRepoSwitches(db, workspace.id, repos[0]!.id, { enabled: true }))!;
    await saveAuthorization(db, box, {
      workspaceId: workspace.id,
      memberId: owner.id,
      user: await client.getUser(tokens.token),
      tokens,
    });
    await setDispatchIdentity(db, workspace.id, owner.id);

    const every: EventType[] = [
      'dispatch.started',
      'dispatch.pr_opened',
      'dispatch.completed',
      'dispatch.failed',
    ];
    const subscribed: { receiver: Receiver; secret: string }[] = [];
    for (const name of ['a', 'b']) {
      const receiver = await new Receiver().start();
      receivers.push(receiver);
      const input = await validateEndpoint(
        db,
        workspace.id,
        { url: `${receiver.url}/${name}`, event_types: every },
        { allowPrivateTargets: true },
      );
      const { secret } = await createEndpoint(db, box, workspace.id, input, null);
      subscribed.push({ receiver, secret });
    }

    const writeToken = (await createApiToken(db, workspace, { scopes: ['tenant:write'] })).raw;
    const dispatch = async (): Promise<void> => {
      const ticket = await createFeedback(db, workspace);
      const res = await createFerryClient(web.url, writeToken).POST(
        '/api/v1/feedback/{feedbackId}/dispatch',
        { params: { path: { feedbackId: ticket.id } }, body: { repo: shop.id } },
      );
      expect(res.response.status).toBe(202);
    };
    fake.scriptTasks([
      'in_progress',
      { state: 'in_progress', pr: true },
      { state: 'completed', pr: true },
    ]);
    await dispatch();
    await subscribed[0]!.receiver.waitFor(3);
    fake.scriptTasks(['in_progress', { state: 'failed', error: 'the tests did not pass' }]);
    await dispatch();

    for (const { receiver, secret } of subscribed) {
      await receiver.waitFor(5);
      const got = receiver.requests.map((request) => {
        new StandardWebhook(secret).verify(request.body, stringHeaders(request.headers));
        const body = JSON.parse(request.body) as { type: string };
        if (!isEventType(body.type)) throw new Error(`not a catalog type: ${body.type}`);
        const parsed = eventEnvelopeSchema(body.type).parse(body);
        return {
          id: request.headers['webhook-id'],
          type: parsed.type,
          data: parsed.data as EventData<'dispatch.started'>,
        };
      });
      expect(got.map((event) => event.type)).toEqual([
        'dispatch.started',
        'dispatch.pr_opened',
        'dispatch.completed',
        'dispatch.started',
        'dispatch.failed',
      ]);
      expect(new Set(got.map((event) => event.id)).size).toBe(5);
      expect(got[1]!.data.dispatch.pr_url).toMatch(/\/acme\/shop\/pull\/\d+$/);
      expect(got[4]!.data.dispatch.error).toMatch(/the tests did not pass/);
    }
  });
});
