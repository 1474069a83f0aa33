import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestContext,
  entryCommand,
  FormClient,
  freePort,
  killAll,
  Receiver,
  startService,
  waitUntil,
  type ServiceProcess,
  type TestContext,
} from '@ferry/testing';

const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));

/**
 * `pnpm start` in its own process at the most verbose log level, used the way people and systems
 * use it: sign-up, an API token sent as a header and as `?access_token=`, an incoming key posted
 * to (in any case of its path), an outgoing hook's signing secret revealed and used, a local
 * agent's token and its wake token (sent in a real wake request). Then every
 * line the process wrote (stdout and stderr) is searched for every secret it handled.
 */
describe('no secret in any log line', () => {
  let ctx: TestContext;
  let ferry: ServiceProcess;
  let receiver: Receiver;
  let url: string;

  beforeAll(async () => {
    ctx = await createTestContext();
    receiver = await new Receiver().start();
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    // Up when our own child says so on this URL: a port answering could be someone else's server.
    // A primary and its workers each load the product in turn (FERRY_PROCESSES defaults to the
    // cores), which on a loaded host takes a while.
    ferry = await startService({
      command: entryCommand(main),
      port,
      env: {
        ...ctx.env,
        PUBLIC_URL: url,
        LOG_LEVEL: 'trace',
        ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
      },
      readyLine: `Ferry is up: ${url}`,
    });
  });

  afterAll(async () => {
    if (ferry) await killAll([ferry]);
    await receiver?.close();
    await ctx?.close();
  });

  it('handles passwords, tokens, keys and signing secrets without logging one', async () => {
    const secrets: Record<string, string> = {};
    const client = new FormClient(url);
    secrets.password = 'correct horse battery staple 42';
    const signup = await client.post(
      '/signup',
      { name: 'Ada Lovelace', email: 'ada@example.test', password: secrets.password },
      { csrfFrom: '/signup' },
    );
    expect(signup.status).toBe(302);
    const wrong = await new FormClient(url).post('/login', {
      email: 'ada@example.test',
      password: 'the wrong one, also secret',
    });
    expect(wrong.status).toBe(303); // back to /login (Post/Redirect/Get), the password kept nowhere
    secrets.wrongPassword = 'the wrong one, also secret';
    const made = await client.post(
      '/workspaces',
      { name: 'Acme' },
      { csrfFrom: '/workspaces/new' },
    );
    const base = made.location!.replace(/\/$/, '');
    expect(base).toMatch(/^\/w\/wsp_/);
    const workspaceId = base.split('/')[2]!;
    const general = await ctx.db
      .selectFrom('rooms')
      .select('id')
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow();

    // An API token, used in the header and in the query string.
    const tokens = `${base}/settings/tokens`;
    const created = await client.post(
      tokens,
      { name: 'CI', scopes: 'tenant:write' },
      { csrfFrom: `${tokens}/new` },
    );
    const shown = await client.get(created.location!);
    secrets.apiToken = /fry_[A-Za-z0-9_-]{43}/.exec(shown.text)![0];
    const filed = await fetch(`${url}/api/v1/feedback`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secrets.apiToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ note: 'Pay does nothing' }),
    });
    expect(filed.status).toBe(201);
    await fetch(`${url}/api/v1/feedback?access_token=${secrets.apiToken}`);
    await fetch(`${url}/api/v1/feedback?page=1&token=${secrets.apiToken}`);

    // An incoming key, revealed, posted to in every case of its path.
    const tab = `${base}/rooms/${general.id}/settings/webhooks`;
    const key = await client.post(`${tab}/incoming`, { name: 'Deploys' }, { csrfFrom: tab });
    const revealed = await client.post(`${key.location!}/reveal`, {}, { csrfFrom: key.location! });
    secrets.incomingKey = /whk_[A-Za-z0-9_-]{43}/.exec(revealed.text)![0];
    for (const path of ['/wh/in/', '/WH/IN/', '/Wh/In/']) {
      await fetch(`${url}${path}${secrets.incomingKey}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'deployed' }),
      });
    }
    await fetch(`${url}/wh/in/${secrets.incomingKey}`, { method: 'POST', body: '{not json' });

    // An outgoing hook: its signing secret revealed, then used to sign a delivery.
    const hook = await client.post(
      `${tab}/outgoing`,
      { target_url: `${receiver.url}/hook` },
      { csrfFrom: tab },
    );
    const hookPage = await client.post(
      `${hook.location!}/reveal`,
      {},
      {
        csrfFrom: hook.location!,
      },
    );
    secrets.signingSecret = /whsec_[A-Za-z0-9+/]{32}/.exec(hookPage.text)![0];
    const room = `${base}/rooms/${general.id}`;
    await client.post(`${room}/messages`, { body: 'hello hooks' }, { csrfFrom: room });
    await receiver.waitFor(1, 30_000);

    // A local agent's token, and its wake token used in a wake request.
    const dispatchToken = await client.post(
      tokens,
      { name: 'Laptop agent', scopes: 'platform:dispatch' },
      { csrfFrom: `${tokens}/new` },
    );
    secrets.dispatchToken = /fry_[A-Za-z0-9_-]{43}/.exec(
      (await client.get(dispatchToken.location!)).text,
    )![0];
    const beat = await fetch(`${url}/agents/v1/heartbeat`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${secrets.dispatchToken}`,
        'x-service-install-id': 'logs-test-0001',
        'content-type': 'application/json',
      },
      body: '{}',
    });
    expect(beat.status).toBe(200);
    const agent = await ctx.db
      .selectFrom('agents')
      .select('id')
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow();
    secrets.wakeToken = 'wake-token-never-logged-7f3a';
    const configure = `${base}/agents/${agent.id}`;
    const saved = await client.post(
      `${configure}/wake`,
      { wake_url: `${receiver.url}/wake`, wake_token: secrets.wakeToken },
      { csrfFrom: configure },
    );
    expect(saved.status).toBe(303);
    // Offline (no stream): a new ticket makes the gateway wake it, with the token.
    await fetch(`${url}/api/v1/feedback`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secrets.apiToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ note: 'Wake the agent' }),
    });
    await waitUntil(
      () => receiver.requests.some((r) => r.path === '/wake'),
      'the wake request',
      20_000,
    );
    const wake = receiver.requests.find((r) => r.path === '/wake')!;
    expect(wake.headers['x-service-wake-token']).toBe(secrets.wakeToken);

    // An invite link (#20 item 7): made, opened signed out (its redirect to sign-in carries it
    // in `next`), opened and accepted signed in.
    const members = `${base}/members`;
    await client.post(
      `${members}/invites`,
      { role: 'member', expires_in_days: '7' },
      { csrfFrom: members },
    );
    secrets.inviteToken = /inv_[A-Za-z0-9_-]{43}/.exec((await client.get(members)).text)![0];
    const visitor = new FormClient(url);
    const offered = await visitor.get(`/invite/${secrets.inviteToken}`);
    expect(offered.status).toBe(200);
    const toSignIn = await visitor.post(`/invite/${secrets.inviteToken}`, {});
    expect(toSignIn.location).toContain(encodeURIComponent(`/invite/${secrets.inviteToken}`));
    await visitor.post(
      '/signup',
      { name: 'Grace Hopper', email: 'grace@example.test', password: secrets.password },
      { csrfFrom: '/signup' },
    );
    const joined = await visitor.post(
      `/invite/${secrets.inviteToken}`,
      {},
      { csrfFrom: `/invite/${secrets.inviteToken}` },
    );
    expect(joined.status).toBe(302);
    // Where GitHub sends the browser back: its state and code are credentials.
    secrets.githubState = 'state-never-logged-91c2e7';
    secrets.githubCode = 'code-never-logged-4d1b08';
    await client.get(`/github/callback?code=${secrets.githubCode}&state=${secrets.githubState}`);
    await client.get(
      `/github/setup?installation_id=4242&setup_action=install&state=${secrets.githubState}`,
    );

    // Stopped gracefully; terminate() resolves once its output has ended, last lines included.
    await ferry.terminate();

    const logs = ferry.log();
    expect(logs.length).toBeGreaterThan(1_000);
    // POST /wh/in/<key> answers before the request log (a hot route: no line per post); the
    // mis-cased /WH/IN/<key>, which reaches the logged routes, is logged with the key redacted.
    expect(logs).toContain('/WH/IN/[redacted]');
    expect(logs).toMatch(/access_token=\[redacted\]/);
    for (const [name, secret] of Object.entries(secrets)) {
      expect({ name, found: logs.includes(secret) }).toEqual({ name, found: false });
    }
    // The signing secret's key bytes, base64 (what Standard Webhooks signs with), too.
    expect(logs.includes(secrets.signingSecret.slice('whsec_'.length))).toBe(false);
  });
});
