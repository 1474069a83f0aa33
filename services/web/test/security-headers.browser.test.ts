import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFeedback,
  createMember,
  createMessage,
  createRoom,
  createWorkspace,
} from '@ferry/testing';
import { launchBrowser, signInWithForm, type TestBrowser } from '@ferry/testing/browser';
import { startWeb, type WebHarness } from './harness.js';

/**
 * Pages carry a strict CSP (no inline script or style), refuse framing and sniffing; and every
 * page of the app works under that policy: a browser visiting them reports no violation.
 */
describe('security headers on pages', () => {
  let web: WebHarness;
  let chrome: TestBrowser;
  beforeAll(async () => {
    [web, chrome] = await Promise.all([startWeb(), launchBrowser()]);
  });
  afterAll(async () => {
    await chrome?.close();
    await web?.close();
  });

  it('sends CSP, frame, sniffing and referrer headers on pages, errors and the API', async () => {
    for (const path of ['/login', '/nothing-here', '/api/v1/feedback', '/assets/app.css']) {
      const res = await fetch(`${web.url}${path}`);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect({ path, csp }).toEqual({
        path,
        csp: expect.stringContaining("script-src 'self'") as string,
      });
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("style-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('same-origin');
    }
  });

  it('has an icon: linked from every page, and at /favicon.ico', async () => {
    const ico = await fetch(`${web.url}/favicon.ico`, { redirect: 'manual' });
    expect(ico.status).toBe(301);
    expect(ico.headers.get('location')).toBe('/assets/favicon.svg');
    const svg = await fetch(`${web.url}/assets/favicon.svg`);
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toContain('image/svg+xml');
    expect(await (await fetch(`${web.url}/login`)).text()).toContain(
      '<link rel="icon" href="/assets/favicon.svg"',
    );
  });

  it('every page works under the policy: no violation reported while using them', async () => {
    const workspace = await createWorkspace(web.ctx.db, { name: 'Acme' });
    const owner = await createMember(web.ctx.db, workspace, { role: 'owner' });
    const room = await createRoom(web.ctx.db, workspace, { name: 'general', members: [owner] });
    await createMessage(web.ctx.db, room, { body: 'hello **there** <img src=x onerror=alert(1)>' });
    const ticket = await createFeedback(web.ctx.db, workspace);
    const context = await chrome.browser.newContext();
    const page = await context.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text()))
        violations.push(message.text());
    });
    await page.exposeFunction('reportViolation', (text: string) => violations.push(text));
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => {
        const target = window as unknown as { reportViolation: (text: string) => void };
        target.reportViolation(`${event.violatedDirective} ${event.blockedURI}`);
      });
    });
    await signInWithForm(page, web.url, owner.user.email, owner.user.password);
    const base = `${web.url}/w/${workspace.id}/${workspace.slug}`;
    for (const path of [
      '',
      `/rooms/${room.id}`,
      '/rooms',
      '/members',
      '/settings/tokens',
      '/settings/tokens/new',
      '/feedback',
      `/feedback/${ticket.id}`,
      '/errors',
      '/settings/errors',
      `/rooms/${room.id}/settings/webhooks`,
    ]) {
      await page.goto(`${base}${path}`);
      await page.waitForLoadState('networkidle');
    }
    // The room page's script ran (it marks the room once its socket joined).
    await page.goto(`${base}/rooms/${room.id}`);
    await page.locator('.room[data-connected="true"]').waitFor();
    await page.getByLabel('Message').fill('sent under CSP');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('sent under CSP').waitFor();
    expect(violations).toEqual([]);
    await context.close();
  });
});
