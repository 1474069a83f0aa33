import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '@ferry/core';
import { createApiToken } from '@ferry/testing';
import { registerAgent } from '@ferry/workspace';
import { signedInSeat, startWeb, type WebHarness } from './harness.js';

/** The agents pages over HTTP: status JSON, Configure (settings, wake), the ship policy. */
describe('agents pages', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWeb({ ALLOW_PRIVATE_WEBHOOK_TARGETS: 'false' });
  });
  afterAll(async () => {
    await web.close();
  });

  async function withAgents(role: 'admin' | 'member' = 'admin') {
    const seated = await signedInSeat(web, role);
    const token = await createApiToken(web.ctx.db, seated.workspace, {
      scopes: ['platform:dispatch'],
    });
    const register = (installId: string, name: string) =>
      registerAgent(web.ctx.db, {
        workspaceId: seated.workspace.id,
        installId,
        name,
        tokenId: token.id,
      });
    const first = await register('install-aaaa-1', 'Shop');
    const second = await register('install-bbbb-2', 'shop');
    return { ...seated, first, second, agents: `${seated.base}/agents` };
  }

  it('lists agents with their status, for members too, and the card on the dashboard', async () => {
    const { client, agents, first, second, base } = await withAgents('member');
    expect([first.name, second.name]).toEqual(['shop', 'shop-2']);
    expect(first.receives_feedback).toBe(true);
    expect(second.receives_feedback).toBe(false);
    await web.ctx.db
      .updateTable('agents')
      .set({
        last_heartbeat_at: new Date(),
        stream_seen_at: new Date(),
        activity: 'Working on: X',
        cli: 'claude 2.1.332',
      })
      .where('id', '=', first.id)
      .execute();
    const status = await client.get(`${agents}/status`);
    expect(JSON.parse(status.text)).toMatchObject({
      agents: [
        {
          id: first.id,
          name: 'shop',
          online: true,
          activity: 'Working on: X',
          cli: 'claude 2.1.332',
        },
        { id: second.id, name: 'shop-2', online: false },
      ],
    });
    const dashboard = await client.get(base);
    expect(dashboard.text).toContain('class="card dispatch-card"');
    expect(dashboard.text).toContain('Working on: X');
    expect(dashboard.text).toContain('<span class="agent-cli muted">· claude 2.1.332</span>');
    expect(dashboard.text).toContain('Not connected');
    // Members see the card but cannot configure.
    expect(dashboard.text).not.toContain(`${agents}/${first.id}"`);
    expect((await client.get(`${agents}/${first.id}`)).status).toBe(403);
    expect((await client.get(`${agents}/settings/ship-policy`)).status).toBe(403);
  });

  it('renames, moves "receives new feedback", and refuses a taken or empty name on its page (303)', async () => {
    const { client, agents, first, second } = await withAgents();
    const page = `${agents}/${second.id}`;
    expect((await client.get(page)).status).toBe(200);
    // Refused: back to the agent's page (303), which shows why beside the name, as posted.
    const taken = await client.post(page, { name: 'SHOP' }, { csrfFrom: page });
    expect({ status: taken.status, location: taken.location }).toEqual({
      status: 303,
      location: page,
    });
    const takenShown = (await client.get(page)).text;
    expect(takenShown).toContain('@shop is taken');
    expect(takenShown).toContain('value="SHOP"');
    const empty = await client.post(page, { name: '!!!' }, { csrfFrom: page });
    expect(empty.status).toBe(303);
    const emptyShown = (await client.get(page)).text;
    expect(emptyShown).toContain('aria-describedby="f-name-error"');
    expect(emptyShown).toContain('value="!!!"');
    const saved = await client.post(
      page,
      { name: 'API Server', receives_feedback: 'on' },
      { csrfFrom: page },
    );
    expect(saved.status).toBe(303);
    const rows = await web.ctx.db
      .selectFrom('agents')
      .select(['id', 'name', 'receives_feedback', 'room_id'])
      .where('id', 'in', [first.id, second.id])
      .orderBy('created_at')
      .execute();
    expect(rows.map((r) => [r.name, r.receives_feedback])).toEqual([
      ['shop', false],
      ['api-server', true],
    ]);
    const room = await web.ctx.db
      .selectFrom('rooms')
      .select('name')
      .where('id', '=', rows[1]!.room_id)
      .executeTakeFirstOrThrow();
    expect(room.name).toBe('api-server');
    expect((await client.get(`${agents}/agt_00000000000000000000000000`)).status).toBe(404);
  });

  it('sets a wake URL (SSRF-checked) and a sealed wake token: masked, replaced, cleared', async () => {
    const { client, agents, first } = await withAgents();
    const page = `${agents}/${first.id}`;
    const wake = `${page}/wake`;
    const privateUrl = await client.post(
      wake,
      { wake_url: 'http://192.168.1.20:8765/', wake_token: 'x' },
      { csrfFrom: page },
    );
    expect({ status: privateUrl.status, location: privateUrl.location }).toEqual({
      status: 303,
      location: page,
    });
    const refusedShown = (await client.get(page)).text;
    expect(refusedShown).toContain('ALLOW_PRIVATE_WEBHOOK_TARGETS');
    expect(refusedShown).toContain('value="http://192.168.1.20:8765/"');
    const saved = await client.post(
      wake,
      { wake_url: 'https://93.184.216.34/wake', wake_token: 'first-token' },
      { csrfFrom: page },
    );
    expect(saved.status).toBe(303);
    const shown = await client.get(page);
    expect(shown.text).toContain('set (••••••••)');
    expect(shown.text).not.toContain('first-token');
    const box = new SecretBox(web.ctx.config.APP_SECRET);
    const sealed = async () =>
      await web.ctx.db
        .selectFrom('agents')
        .select(['wake_url', 'wake_token_sealed'])
        .where('id', '=', first.id)
        .executeTakeFirstOrThrow();
    expect(box.decrypt((await sealed()).wake_token_sealed!)).toBe('first-token');
    // Empty keeps the token; a new value replaces it; clear removes it.
    await client.post(wake, { wake_url: 'https://93.184.216.34/wake' }, { csrfFrom: page });
    expect(box.decrypt((await sealed()).wake_token_sealed!)).toBe('first-token');
    await client.post(
      wake,
      { wake_url: 'https://93.184.216.34/wake', wake_token: 'second' },
      { csrfFrom: page },
    );
    expect(box.decrypt((await sealed()).wake_token_sealed!)).toBe('second');
    await client.post(
      wake,
      { wake_url: 'https://93.184.216.34/wake', clear_token: '1' },
      { csrfFrom: page },
    );
    expect(await sealed()).toEqual({
      wake_url: 'https://93.184.216.34/wake',
      wake_token_sealed: null,
    });
  });

  it('saves the ship policy; bad values come back (303) with inline errors', async () => {
    const { client, agents, workspace } = await withAgents();
    const page = `${agents}/settings/ship-policy`;
    // Patterns match git's case-sensitive paths; the field's help says so.
    const help = (await client.get(page)).text.replace(/\s+/g, ' ');
    expect(help).toContain('Matching is case-sensitive, as in git.');
    const bad = await client.post(
      page,
      { max_files: '-1', max_lines: 'many', always_reviewed: 'x' },
      { csrfFrom: page },
    );
    expect({ status: bad.status, location: bad.location }).toEqual({ status: 303, location: page });
    const badShown = (await client.get(page)).text;
    expect(badShown).toContain('aria-invalid="true"');
    expect(badShown).toContain('value="many"');
    const ok = await client.post(
      page,
      { max_files: '2', max_lines: '40', always_reviewed: 'db/**\n\nconfig/*.yml\n' },
      { csrfFrom: page },
    );
    expect(ok.status).toBe(303);
    const row = await web.ctx.db
      .selectFrom('ship_policies')
      .selectAll()
      .where('workspace_id', '=', workspace.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      max_files: 2,
      max_lines: 40,
      always_reviewed: ['db/**', 'config/*.yml'],
    });
    expect((await client.get(agents)).text).toContain('at most 2 files and 40 lines');
  });
  it('defect 7: the Dispatch card gives the command, the tarball hash and a token, and no dead end', async () => {
    const { client, agents, base, workspace } = await withAgents('admin');
    const command = `curl -fsSL ${web.ctx.config.PUBLIC_URL}/agent/install.sh | sudo bash -s -- --dispatch`;
    const latest = (await (await fetch(`${web.url}/agent/latest.json`)).json()) as {
      version: string;
      sha256: string;
      url: string;
    };
    expect(latest.sha256).toMatch(/^[0-9a-f]{64}$/);
    for (const path of [base, `${base}/settings/tokens`, agents]) {
      const page = await client.get(path);
      expect(page.status, path).toBe(200);
      // A copyable command (no path to guess), the tarball it installs and its SHA-256.
      expect(page.text, path).toContain(`id="agent-install-command">${command}<`);
      expect(page.text, path).toContain('aria-label="Copy the install command"');
      expect(page.text, path).toContain(`ferry-agent-${latest.version}.tar.gz`);
      expect(page.text, path).toContain(latest.sha256);
      expect(page.text, path).toContain(`action="${agents}/dispatch-token"`);
    }
    // On /agents the card has no "All agents" link back to /agents, and it is not squeezed into
    // a third of the grid.
    const agentsPage = (await client.get(agents)).text;
    expect(agentsPage).not.toContain('All agents');
    expect(agentsPage).not.toMatch(/<div class="cards">\s*<section\s+class="card dispatch-card"/);
    expect((await client.get(base)).text).toContain(`href="${agents}">All agents →</a>`);

    // The token is made on the spot (CSRF-checked) and shown once beside the command.
    expect((await client.post(`${agents}/dispatch-token`, { _csrf: '' })).status).toBe(403);
    const made = await client.post(`${agents}/dispatch-token`, {}, { csrfFrom: agents });
    expect(made.status).toBe(303);
    const shown = await client.get(made.location!);
    expect(shown.status).toBe(200);
    const raw = /data-testid="new-token"\s*>(fry_[^<]+)</.exec(shown.text)?.[1];
    expect(raw).toBeDefined();
    expect(shown.text).toContain(command);
    const token = await web.ctx.db
      .selectFrom('api_tokens')
      .select(['scopes', 'name'])
      .where('workspace_id', '=', workspace.id)
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    expect(token.scopes).toEqual(['platform:dispatch']);
    const again = await client.get(made.location!);
    expect(again.text).not.toContain(raw!);
    expect(again.text).toContain('was shown once');
  });

  it('defect 7: members see the command but no token button, and cannot make one', async () => {
    const { client, agents } = await withAgents('member');
    const page = (await client.get(agents)).text;
    expect(page).toContain('agent-install-command');
    expect(page).not.toContain('dispatch-token');
    expect((await client.post(`${agents}/dispatch-token`, {}, { csrfFrom: agents })).status).toBe(
      403,
    );
  });
});
