import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { SecretBox } from '@ferry/core';
import { sql } from 'kysely';
import type { Member, Room, Workspace } from '@ferry/db';
import { createMember, createRoom, createWorkspace } from '@ferry/testing';
import {
  checkBothWidths,
  photograph,
  launchBrowser,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import { createIncomingKey } from '@ferry/workspace';
import { startFerry, type FerryHarness } from './support/ferry.js';

const run = promisify(execFile);
const SHOTS = '/tmp/shots/webhook-payloads';

/**
 * Payloads from Slack and Teams in the room, as `pnpm start` serves it (#25): a rich Slack
 * attachment and a Teams MessageCard at phone and desktop widths (screenshots in SHOTS), admins'
 * "View payload", the key page's Slack-style and Discord-style examples run as shown, and a
 * hostile payload of every family rendering nothing that runs.
 */
describe('incoming payload families in the browser', () => {
  let harness: FerryHarness;
  let chrome: TestBrowser;
  let workspace: Workspace;
  let admin: Member & { user: { email: string; password: string } };
  let member: Member & { user: { email: string; password: string } };
  let room: Room;
  let rawKey: string;
  let keyId: string;

  beforeAll(async () => {
    harness = await startFerry();
    chrome = await launchBrowser();
    const db = harness.ctx.db;
    workspace = await createWorkspace(db, { name: 'Acme Ops' });
    admin = await createMember(db, workspace, { role: 'admin' });
    member = await createMember(db, workspace, { role: 'member' });
    room = await createRoom(db, workspace, { name: 'deploys', members: [admin, member] });
    const created = await createIncomingKey(db, new SecretBox(harness.ctx.config.APP_SECRET), {
      workspaceId: workspace.id,
      roomId: room.id,
      name: 'CI',
      createdBy: admin.id,
    });
    rawKey = created.rawKey;
    keyId = created.webhook.id;
  });
  afterAll(async () => {
    await chrome?.close();
    await harness?.close();
  });

  const roomUrl = () => `${harness.url}/w/${workspace.id}/${workspace.slug}/rooms/${room.id}`;

  async function postPayload(payload: unknown): Promise<string> {
    const res = await fetch(`${harness.url}/wh/in/${rawKey}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(payload),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { message_id: string }).message_id;
  }

  async function signedIn(
    who: { user: { email: string; password: string } },
    width: number,
  ): Promise<Page> {
    const context = await chrome.browser.newContext({ viewport: { width, height: 900 } });
    const page = await context.newPage();
    await signInWithForm(page, harness.url, who.user.email, who.user.password);
    await page.getByRole('heading', { name: 'Acme Ops' }).waitFor();
    return page;
  }

  /** The page is no wider than the viewport (a table or code box may scroll inside itself). */
  const pageWidth = (page: Page) =>
    page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );

  it('shows a rich Slack attachment and a Teams card at 390 and 1280 px; admins view the payload', async () => {
    const slackId = await postPayload({
      text: 'Deploy <https://ci.example.com/runs/42|run 42> *finished* :tada: <!here>',
      username: 'Deploy bot',
      icon_emoji: ':rocket:',
      attachments: [
        {
          color: '#2eb886',
          pretext: 'Production is on *v2.14.0*',
          author_name: 'GitHub Actions',
          author_link: 'https://github.example.com/acme/shop/actions',
          title: 'acme/shop · deploy.yml #42',
          title_link: 'https://github.example.com/acme/shop/actions/runs/42',
          text: 'All 1,204 checks passed in 4 m 12 s. `npm test` :white_check_mark:',
          fields: [
            { title: 'Environment', value: 'production', short: true },
            {
              title: 'Commit',
              value: '<https://github.example.com/acme/shop/commit/a1b2c3d|a1b2c3d>',
              short: true,
            },
            { title: 'Triggered by', value: 'Ada Lovelace', short: true },
          ],
          actions: [
            {
              type: 'button',
              text: 'View run',
              url: 'https://github.example.com/acme/shop/actions/runs/42',
            },
          ],
          footer: 'GitHub Actions',
          ts: 1764061200,
        },
      ],
    });
    const teamsId = await postPayload({
      '@type': 'MessageCard',
      '@context': 'http://schema.org/extensions',
      themeColor: 'D70000',
      summary: 'Checkout error rate above 5%',
      title: 'Alert: checkout error rate above 5%',
      sections: [
        {
          activityTitle: 'Azure Monitor',
          activitySubtitle: 'Fired 2 minutes ago',
          facts: [
            { name: 'Resource', value: 'shop-api-prod' },
            { name: 'Severity', value: 'Sev1' },
            { name: 'Value', value: '7.3%' },
          ],
        },
      ],
      potentialAction: [
        {
          '@type': 'OpenUri',
          name: 'Open in Azure',
          targets: [{ os: 'default', uri: 'https://portal.azure.example.com/alerts/123' }],
        },
      ],
    });

    for (const width of [390, 1280]) {
      const page = await signedIn(admin, width);
      await page.goto(roomUrl());
      const slack = page.locator(`li.message[data-id="${slackId}"]`);
      const teams = page.locator(`li.message[data-id="${teamsId}"]`);
      await teams.waitFor();
      expect(await slack.locator('.author').textContent()).toBe('Deploy bot');
      expect((await slack.locator('.avatar').textContent())?.trim()).toBe('🚀');
      expect(
        await slack
          .locator('.body a')
          .evaluateAll((links) => links.map((a) => [a.textContent, a.getAttribute('href')])),
      ).toEqual([
        ['run 42', 'https://ci.example.com/runs/42'],
        ['GitHub Actions', 'https://github.example.com/acme/shop/actions'],
        ['acme/shop · deploy.yml #42', 'https://github.example.com/acme/shop/actions/runs/42'],
        ['a1b2c3d', 'https://github.example.com/acme/shop/commit/a1b2c3d'],
        ['View run', 'https://github.example.com/acme/shop/actions/runs/42'],
      ]);
      expect(await slack.locator('.body > p').first().textContent()).toBe(
        'Deploy run 42 finished 🎉 @here',
      );
      expect(await slack.locator('.body strong').first().textContent()).toBe('finished');
      expect(await slack.locator('blockquote li').allTextContents()).toEqual([
        'Environment: production',
        'Commit: a1b2c3d',
        'Triggered by: Ada Lovelace',
      ]);
      expect(await teams.locator('blockquote h3').textContent()).toBe(
        '🟥 Alert: checkout error rate above 5%',
      );
      expect(await teams.locator('blockquote li').allTextContents()).toEqual([
        'Resource: shop-api-prod',
        'Severity: Sev1',
        'Value: 7.3%',
      ]);
      expect(await teams.getByRole('link', { name: 'Open in Azure' }).getAttribute('href')).toBe(
        'https://portal.azure.example.com/alerts/123',
      );
      expect(await pageWidth(page)).toBeLessThanOrEqual(1);
      await photograph(page, `${SHOTS}/room-${width}.png`, { fullPage: true });
      // Each message whole (the room's list scrolls inside itself and may cut the first one).
      await photograph(slack, `${SHOTS}/slack-attachment-${width}.png`);
      await photograph(teams, `${SHOTS}/teams-card-${width}.png`);

      // Admins: the payload as it arrived, closed until opened.
      const disclosure = slack.locator('details.payload');
      expect(await disclosure.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
      await disclosure.locator('summary').click();
      expect(await disclosure.locator('pre').textContent()).toContain('"icon_emoji": ":rocket:"');
      if (width === 1280) {
        await photograph(page, `${SHOTS}/payload-open-${width}.png`, { fullPage: true });
      }
      await page.context().close();
    }

    const memberPage = await signedIn(member, 1280);
    await memberPage.goto(roomUrl());
    await memberPage.locator(`li.message[data-id="${teamsId}"]`).waitFor();
    expect(await memberPage.locator('details.payload').count()).toBe(0);
    await memberPage.context().close();
  });

  it("lists every sender URL, readable at 390 and 1280 px, and runs the page's commands as shown (issue 44)", async () => {
    const page = await signedIn(admin, 1280);
    await page.goto(`${roomUrl()}/settings/webhooks/incoming/${keyId}`);
    await page.getByRole('button', { name: 'Reveal' }).click();
    await page.getByRole('button', { name: 'Copy the key' }).waitFor();
    for (const [section, suffix] of [
      ['sender-plain', ''],
      ['sender-slack', '/slack'],
      ['sender-github', '/github'],
      ['sender-discord', '/discord'],
    ] as const) {
      expect(await page.getByTestId(`${section}-url`).textContent()).toBe(
        `${harness.url}/wh/in/${rawKey}${suffix}`,
      );
    }
    await page.getByLabel('GitHub signing secret').waitFor();
    await checkBothWidths(page, `${SHOTS}/key-page`);
    await photograph(page, `${SHOTS}/key-page-1280.png`, { fullPage: true });
    const command = async (testId: string): Promise<string> => {
      const shown = ((await page.getByTestId(testId).textContent()) ?? '').trim();
      return (await run('bash', ['-c', shown], { timeout: 30_000 })).stdout;
    };
    const plain = (JSON.parse(await command('curl-example')) as { message_id: string }).message_id;
    // The Slack command posts to /slack, which answers as Slack does.
    expect(await command('slack-example')).toBe('ok');
    const discord = (JSON.parse(await command('discord-example')) as { message_id: string })
      .message_id;
    const slackId = (
      await harness.ctx.db
        .selectFrom('messages')
        .select('id')
        .where('author_ref', '=', keyId)
        .where('body', 'like', '%run 42%')
        .where(sql<string>`metadata->>'format'`, '=', 'slack')
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow()
    ).id;
    await page.goto(roomUrl());
    const [, slack, discordItem] = [plain, slackId, discord].map((id) =>
      page.locator(`li.message[data-id="${id}"]`),
    );
    await discordItem!.waitFor();
    expect(await slack!.getByRole('link', { name: 'run 42' }).getAttribute('href')).toBe(
      'https://ci.example.com/runs/42',
    );
    expect((await slack!.locator('.avatar').textContent())?.trim()).toBe('🚀');
    expect(await discordItem!.getByRole('link', { name: 'Run 42' }).getAttribute('href')).toBe(
      'https://ci.example.com/runs/42',
    );
    expect(await discordItem!.locator('.body strong').first().textContent()).toBe('finished');
    await page.context().close();
  });

  it('renders a hostile payload of every family without running or linking anything unsafe', async () => {
    const evil = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>';
    const js = 'javascript:window.__pwned=1';
    const ids = [
      await postPayload({
        text: `${evil} <${js}|click> *${evil}*`,
        icon_emoji: evil,
        icon_url: js,
        blocks: [
          { type: 'section', text: { type: 'mrkdwn', text: `<${js}|section>` } },
          { type: 'header', text: { type: 'plain_text', text: evil } },
          { type: 'image', image_url: js, alt_text: evil },
          {
            type: 'actions',
            elements: [{ type: 'button', text: { type: 'plain_text', text: 'btn' }, url: js }],
          },
        ],
        attachments: [
          {
            title: evil,
            title_link: js,
            author_name: evil,
            author_link: js,
            fields: [{ title: evil, value: evil }],
            footer: evil,
          },
        ],
      }),
      await postPayload({
        content: evil,
        avatar_url: js,
        embeds: [
          {
            title: evil,
            url: js,
            description: `[x](${js})`,
            fields: [{ name: evil, value: evil }],
          },
        ],
      }),
      await postPayload({
        '@type': 'MessageCard',
        title: evil,
        text: `[x](${js})`,
        sections: [{ activityTitle: evil, facts: [{ name: evil, value: evil }] }],
        potentialAction: [{ '@type': 'OpenUri', name: evil, targets: [{ uri: js }] }],
      }),
      await postPayload({
        type: 'AdaptiveCard',
        body: [
          { type: 'TextBlock', text: evil },
          { type: 'Image', url: js },
        ],
        actions: [{ type: 'Action.OpenUrl', title: evil, url: js }],
      }),
      await postPayload({ text: evil, props: { card: `[x](${js}) ${evil}` } }),
    ];
    const page = await signedIn(admin, 1280);
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(roomUrl());
    for (const id of ids) {
      const item = page.locator(`li.message[data-id="${id}"]`);
      await item.waitFor();
      await item.locator('details.payload summary').click();
      expect(await item.locator('img, script, iframe').count()).toBe(0);
      const hrefs = await item
        .locator('a[href]')
        .evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''));
      expect(hrefs.filter((href) => !/^(https?:|\/)/.test(href))).toEqual([]);
      expect(await item.locator('.body').textContent()).toContain('<script>');
    }
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(dialogs).toEqual([]);
    await page.context().close();
  });
});
