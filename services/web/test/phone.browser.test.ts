import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { newId, SecretBox } from '@ferry/core';
import {
  createApiToken,
  createErrorGroup,
  createErrorOccurrence,
  createFeedback,
  createMember,
  createMessage,
  createUser,
} from '@ferry/testing';
import {
  axeViolations,
  photograph,
  launchBrowser,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import {
  createChannel,
  createIncomingKey,
  createOutgoingHook,
  createWorkspace,
  postMessage,
  registerAgent,
  removeMember,
} from '@ferry/workspace';
import { startWeb, type WebHarness } from './harness.js';

const SHOTS = '/tmp/shots/phone';
/** A word longer than a phone is wide: it must wrap, not push the page sideways. */
const LONG_WORD = `checkout-${'x'.repeat(120)}`;

/**
 * Issue #13 item 7: every page an owner reaches is usable at 390 px (nothing wider than the
 * screen, the sidebar folded behind a Menu button) and at 1280 px, and axe-clean at both.
 * Screenshots of each go to /tmp/shots/phone for a person to look at.
 */
describe('every page at phone and desktop width', () => {
  let web: WebHarness;
  let chrome: TestBrowser;
  beforeAll(async () => {
    web = await startWeb({ ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' });
    chrome = await launchBrowser();
  });
  afterAll(async () => {
    await chrome?.close();
    await web?.close();
  });

  /** What sticks out past the viewport's right edge, by selector (empty: nothing). */
  async function overflowing(page: Page): Promise<string[]> {
    return page.evaluate(() => {
      const width = document.documentElement.clientWidth;
      if (document.documentElement.scrollWidth <= width + 1) return [];
      const wide: string[] = [];
      for (const el of Array.from(document.body.querySelectorAll('*'))) {
        const box = el.getBoundingClientRect();
        // Inside a scrolling box (a table's, a code sample's) is fine: the box itself is measured.
        let scroller = el.parentElement;
        let contained = false;
        while (scroller && scroller !== document.body) {
          const overflowX = getComputedStyle(scroller).overflowX;
          if (overflowX === 'auto' || overflowX === 'scroll' || overflowX === 'hidden') {
            contained = true;
            break;
          }
          scroller = scroller.parentElement;
        }
        if (!contained && box.right > width + 1) {
          wide.push(`${el.tagName.toLowerCase()}.${el.className} (${Math.round(box.right)}px)`);
        }
      }
      // Something still widens the page (an absolutely positioned child escaping its scroller).
      if (!wide.length)
        wide.push(`the page itself (${document.documentElement.scrollWidth}px wide)`);
      return wide.slice(0, 5);
    });
  }

  /**
   * What the owner sees: a long room name and an unbroken long word in a message, a mention, keys,
   * a hook, tokens (one whose maker left), a ticket and an error group. Each page is its own test,
   * so each has its own time bound and a failure names the page.
   */
  describe('an owner with long content', () => {
    let page: Page;
    let seeded: {
      base: string;
      longRoomId: string;
      generalRoomId: string;
      hookId: string;
      ticketId: string;
      groupId: string;
    };

    beforeAll(async () => {
      const db = web.ctx.db;
      const owner = await createUser(db, { name: 'Ada Lovelace' });
      const {
        workspace,
        owner: seat,
        generalRoomId,
      } = await createWorkspace(db, owner, 'Acme Support and Operations');
      const box = new SecretBox(web.ctx.config.APP_SECRET);
      const long = await createChannel(db, seat, 'customer-escalations-and-incident-follow-ups');
      await createMessage(db, long, {
        author_kind: 'member',
        author_member_id: seat.id,
        display_name: owner.name,
        body: `The link was ${LONG_WORD} and it broke the layout`,
      });
      // Something on the Mentions page: an agent asks Ada in the long-named room.
      await postMessage(db, {
        roomId: long.id,
        workspaceId: workspace.id,
        authorKind: 'agent',
        authorRef: 'agt_phone',
        displayName: 'claude',
        body: `@ada the fix for ${LONG_WORD} is ready for review`,
      });
      await createIncomingKey(db, box, {
        workspaceId: workspace.id,
        roomId: generalRoomId,
        name: 'Deploy notifications from the build server',
        createdBy: seat.id,
      });
      const { hook } = await createOutgoingHook(db, box, {
        workspaceId: workspace.id,
        roomId: generalRoomId,
        targetUrl: `https://hooks.example.test/${LONG_WORD}`,
        createdBy: seat.id,
      });
      // Tokens (a live one and one its maker took with them) and a second member: wide tables
      // whose hidden column labels must not widen the page.
      const leaver = await createMember(db, workspace, { role: 'admin' });
      await createApiToken(db, workspace, { name: 'Continuous integration', createdBy: seat });
      await createApiToken(db, workspace, { name: 'Laptop agent', createdBy: leaver });
      await removeMember(db, workspace.id, leaver.id, seat);
      const ticket = await createFeedback(db, workspace, { note: `Pay button ${LONG_WORD}` });
      const group = await createErrorGroup(db, workspace, {
        error_class: `Faraday::${LONG_WORD}`,
        latest_message: `undefined method for nil ${LONG_WORD}`,
      });
      await createErrorOccurrence(db, group, { backtrace: [`app/models/${LONG_WORD}.rb:10`] });

      const base = `/w/${workspace.id}/${workspace.slug}`;
      seeded = {
        base,
        longRoomId: long.id,
        generalRoomId,
        hookId: hook.id,
        ticketId: ticket.id,
        groupId: group.id,
      };
      page = await (await chrome.newContext()).newPage();
      await signInWithForm(page, web.url, owner.email, owner.password);
      await page.waitForURL(`${web.url}${base}`);
    });

    const pages: [string, () => string][] = [
      ['dashboard', () => seeded.base],
      ['rooms', () => `${seeded.base}/rooms`],
      ['mentions', () => `${seeded.base}/mentions`],
      ['room', () => `${seeded.base}/rooms/${seeded.longRoomId}`],
      ['room-people', () => `${seeded.base}/rooms/${seeded.longRoomId}/people`],
      ['room-webhooks', () => `${seeded.base}/rooms/${seeded.generalRoomId}/settings/webhooks`],
      [
        'outgoing-hook',
        () =>
          `${seeded.base}/rooms/${seeded.generalRoomId}/settings/webhooks/outgoing/${seeded.hookId}`,
      ],
      ['feedback', () => `${seeded.base}/feedback`],
      ['ticket', () => `${seeded.base}/feedback/${seeded.ticketId}`],
      ['errors', () => `${seeded.base}/errors`],
      ['error-group', () => `${seeded.base}/errors/${seeded.groupId}`],
      ['agents', () => `${seeded.base}/agents`],
      ['members', () => `${seeded.base}/members`],
      ['tokens', () => `${seeded.base}/settings/tokens`],
      ['new-token', () => `${seeded.base}/settings/tokens/new`],
      ['github', () => `${seeded.base}/settings/github`],
      ['widget', () => `${seeded.base}/settings/widget`],
      ['error-reporting', () => `${seeded.base}/settings/errors`],
      ['workspaces', () => '/workspaces'],
    ];
    for (const [name, pathOf] of pages) {
      it(`${name}: fits 390 px and 1280 px and is axe-clean at both`, async () => {
        const problems: Record<string, unknown> = {};
        for (const width of [390, 1280]) {
          await page.setViewportSize({ width, height: 844 });
          const res = await page.goto(`${web.url}${pathOf()}`);
          if (res?.status() !== 200) problems[`${name}@${width} status`] = res?.status();
          const wide = await overflowing(page);
          if (wide.length) problems[`${name}@${width} overflows`] = wide;
          const violations = await axeViolations(page);
          if (violations.length) problems[`${name}@${width} axe`] = violations;
          await photograph(page, `${SHOTS}/${name}-${width}.png`, { fullPage: true });
        }
        expect(problems).toEqual({});
      });
    }

    it('a long room name wraps between its words, not a letter a line beside the buttons', async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${web.url}${seeded.base}/rooms/${seeded.longRoomId}`);
      const title = await page.locator('#room-title').boundingBox();
      expect(title!.height).toBeLessThan(100);
      expect(title!.width).toBeGreaterThan(300);
    });

    it('on a phone the sidebar waits behind Menu; at desktop width its links are simply there', async () => {
      const { base } = seeded;
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${web.url}${base}`);
      const menu = page.getByRole('button', { name: 'Menu' });
      await expect(page.getByRole('link', { name: 'Members' }).isVisible()).resolves.toBe(false);
      await menu.click();
      await expect(menu.getAttribute('aria-expanded')).resolves.toBe('true');
      await page.getByRole('link', { name: 'Members' }).click();
      await page.waitForURL(`${web.url}${base}/members`);
      await photograph(page, `${SHOTS}/menu-closed-390.png`);
      await page.getByRole('button', { name: 'Menu' }).click();
      await photograph(page, `${SHOTS}/menu-open-390.png`);
      // At desktop width there is no Menu button; the links are simply there.
      await page.setViewportSize({ width: 1280, height: 844 });
      await expect(page.getByRole('button', { name: 'Menu' }).isVisible()).resolves.toBe(false);
      await expect(page.getByRole('link', { name: 'Members' }).isVisible()).resolves.toBe(true);
    });
  });

  it('long names wrap or end in an ellipsis with the whole name on hover, at 390 and 1280 px (#28)', async () => {
    const db = web.ctx.db;
    // SPEC allows 120 characters for a person's name and a webhook's sender, 80 for a room's.
    const longName = `Bartholomew${'x'.repeat(100)}Longname`.slice(0, 120);
    const owner = await createUser(db, { name: longName });
    const { workspace, owner: seat, generalRoomId } = await createWorkspace(db, owner, 'Acme');
    const roomName = `incidents${'y'.repeat(71)}`;
    const room = await createChannel(db, seat, roomName);
    const sender = `DeploymentNotifier${'z'.repeat(102)}`;
    for (const r of [room.id, generalRoomId]) {
      await postMessage(db, {
        roomId: r,
        workspaceId: workspace.id,
        authorKind: 'webhook',
        authorRef: null,
        displayName: sender,
        body: 'Deployed',
      });
      await postMessage(db, {
        roomId: r,
        workspaceId: workspace.id,
        authorKind: 'member',
        authorMemberId: seat.id,
        displayName: owner.name,
        body: `hello @${roomName}`,
      });
    }
    const colleague = await createMember(db, workspace, { role: 'member' });
    await postMessage(db, {
      roomId: generalRoomId,
      workspaceId: workspace.id,
      authorKind: 'member',
      authorMemberId: colleague.id,
      displayName: colleague.user.name,
      body: `@${owner.name.toLowerCase()} look`,
    });
    const ticket = await createFeedback(db, workspace, {
      reporter_label: `Veronica${'v'.repeat(112)}`,
      assignee_member_id: seat.id,
    });
    // GitHub allows 39 characters for an owner and 100 for a repository; agent names 40.
    const repoFullName = `${'o'.repeat(39)}/${'checkout-service-'.repeat(6)}`.slice(0, 140);
    await db
      .insertInto('github_repos')
      .values({
        id: newId('githubRepo'),
        workspace_id: workspace.id,
        github_id: '4242',
        node_id: 'R_long',
        full_name: repoFullName,
        default_branch: 'main',
        linked: true,
        enabled: true,
      })
      .execute();
    const agentToken = await createApiToken(db, workspace, { scopes: ['platform:dispatch'] });
    const agent = await registerAgent(db, {
      workspaceId: workspace.id,
      installId: 'long-name',
      name: `storefront${'w'.repeat(30)}`,
      tokenId: agentToken.id,
    });
    const base = `/w/${workspace.id}/${workspace.slug}`;
    const pages: [string, string][] = [
      ['long-dashboard', base],
      ['long-github', `${base}/settings/github`],
      ['long-agents', `${base}/agents`],
      ['long-agent', `${base}/agents/${agent.id}`],
      ['long-agent-room', `${base}/rooms/${agent.room_id}`],
      ['long-rooms', `${base}/rooms`],
      ['long-room', `${base}/rooms/${room.id}`],
      ['long-general', `${base}/rooms/${generalRoomId}`],
      ['long-room-people', `${base}/rooms/${room.id}/people`],
      ['long-members', `${base}/members`],
      ['long-mentions', `${base}/mentions`],
      ['long-feedback', `${base}/feedback`],
      ['long-ticket', `${base}/feedback/${ticket.id}`],
      ['long-workspaces', '/workspaces'],
    ];
    const page = await (await chrome.newContext()).newPage();
    await signInWithForm(page, web.url, owner.email, owner.password);
    await page.waitForURL(`${web.url}${base}`);
    const problems: Record<string, unknown> = {};
    for (const [name, path] of pages) {
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 844 });
        const res = await page.goto(`${web.url}${path}`);
        if (res?.status() !== 200) problems[`${name}@${width} status`] = res?.status();
        const wide = await overflowing(page);
        if (wide.length) problems[`${name}@${width} overflows`] = wide;
        await photograph(page, `${SHOTS}/${name}-${width}.png`, { fullPage: true });
      }
    }
    expect(problems).toEqual({});

    // The room's own buttons stay on screen, and a cut name keeps the whole of it on hover.
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 844 });
      await page.goto(`${web.url}${base}/rooms/${room.id}`);
      for (const control of [
        page.getByRole('link', { name: 'Leave' }),
        page.getByRole('button', { name: 'Send' }),
      ]) {
        const box = await control.boundingBox();
        expect(box && box.x + box.width).toBeLessThanOrEqual(width);
      }
      const author = page.locator('.message .author', { hasText: 'DeploymentNotifier' }).first();
      await expect(author.getAttribute('title')).resolves.toBe(sender);
      const authorBox = await author.boundingBox();
      expect(authorBox!.width).toBeLessThan(width);
    }
  });
});
