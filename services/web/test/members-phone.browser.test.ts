import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember, createUser } from '@ferry/testing';
import {
  axeViolations,
  photograph,
  launchBrowser,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import { createWorkspace } from '@ferry/workspace';
import { startWeb, type WebHarness } from './harness.js';

const SHOTS = '/tmp/shots/members-phone';

/**
 * #42 defect 3: the Members page at 390 px. The Leave button was cut off, the email wrapped every
 * few letters and the Joined column was off screen. Now nothing is wider than the screen, each
 * member's Leave/Remove button, email and Joined time are in view, and an email breaks only at
 * its dots and @ (never inside a word) when it must break at all.
 */
describe('the Members page on a phone', () => {
  let web: WebHarness;
  let chrome: TestBrowser;
  beforeAll(async () => {
    web = await startWeb();
    chrome = await launchBrowser();
  });
  afterAll(async () => {
    await chrome?.close();
    await web?.close();
  });

  it('fits 390 px: no sideways scroll, Leave and Joined in view, emails whole words', async () => {
    const db = web.ctx.db;
    const admin = await createUser(db, {
      name: 'Margaret Hamilton',
      email: 'margaret.hamilton@apollo-guidance-computer.example.test',
    });
    const owner = await createUser(db, { name: 'Ada Lovelace' });
    const { workspace } = await createWorkspace(db, owner, 'Acme Support');
    await createMember(db, workspace, { user: admin, role: 'admin' });
    for (const name of ['Grace Hopper', 'Katherine Johnson']) {
      const user = await createUser(db, {
        name,
        email: `${name.toLowerCase().replace(' ', '.')}@long-department-name.example.test`,
      });
      await createMember(db, workspace, { user, role: 'member' });
    }
    const base = `${web.url}/w/${workspace.id}/${workspace.slug}`;
    const page = await (await chrome.newContext()).newPage();
    await page.setViewportSize({ width: 390, height: 900 });
    await signInWithForm(page, web.url, admin.email, admin.password);
    await page.waitForURL(base);
    await page.goto(`${base}/members`);
    await page.getByRole('heading', { name: 'Members' }).waitFor();

    const layout = await page.evaluate(() => {
      const width = document.documentElement.clientWidth;
      const table = document.querySelector('table.members')!;
      const inView = (el: Element | null) => {
        if (!el) return false;
        const box = el.getBoundingClientRect();
        return box.width > 0 && box.left >= 0 && box.right <= width + 0.5;
      };
      const leave = Array.from(table.querySelectorAll('a, button')).find(
        (el) => el.textContent?.trim() === 'Leave',
      );
      const joined = Array.from(table.querySelectorAll('tbody td.joined'));
      // An email cell's lines: more lines than the email has dot/@-separated parts means it broke
      // inside a word.
      const emails = Array.from(table.querySelectorAll('tbody td.email')).map((td) => {
        const text = td.textContent?.trim() ?? '';
        const range = document.createRange();
        range.selectNodeContents(td);
        const lines = new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top)));
        return { text, lines: lines.size, parts: text.split(/[.@]/).length };
      });
      return {
        pageScrollsSideways: document.documentElement.scrollWidth > width + 1,
        tableWiderThanScreen: table.getBoundingClientRect().right > width + 0.5,
        leaveInView: inView(leave ?? null),
        joinedInView: joined.length > 0 && joined.every((td) => inView(td)),
        emailsInView: Array.from(table.querySelectorAll('tbody td.email')).every((td) =>
          inView(td),
        ),
        emailsBrokenInWords: emails.filter((e) => e.lines > e.parts).map((e) => e.text),
      };
    });
    expect(layout).toEqual({
      pageScrollsSideways: false,
      tableWiderThanScreen: false,
      leaveInView: true,
      joinedInView: true,
      emailsInView: true,
      emailsBrokenInWords: [],
    });
    expect(await axeViolations(page)).toEqual([]);
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await photograph(page, `${SHOTS}/members-admin-${width}.png`, { fullPage: true });
    }
  });
});
