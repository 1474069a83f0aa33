import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Workspace } from '@ferry/db';
import { createMember, createWorkspace, waitUntil } from '@ferry/testing';
import {
  photograph,
  launchBrowser,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import { WIDGET_SNIPPET } from '@ferry/widget';
import type { Page } from 'playwright-core';
import { startFerry, type FerryHarness } from './support/ferry.js';

const SHOTS = '/tmp/ferry-shots/widget-screenshot';

async function expectVisibleButton(
  scope: ReturnType<Page['locator']>,
  name: string,
): Promise<void> {
  expect(await scope.getByRole('button', { name }).isVisible()).toBe(true);
}

/** Waits for the widget's panel to finish its opening animation (for a screenshot). */
async function settled(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const root = document.querySelector('ferry-feedback')?.shadowRoot;
    return !!root && root.getAnimations().every((a) => a.playState !== 'running');
  });
}

/** The label (or text) of what has focus inside the widget's shadow root. */
function focusedIn(page: Page): Promise<string | null> {
  return page.evaluate(() => {
    const host = document.querySelector('ferry-feedback');
    const el = host?.shadowRoot?.activeElement;
    return el ? el.getAttribute('aria-label') || (el.textContent ?? '').trim() : null;
  });
}

/**
 * The widget's screenshot (issue 28) as a visitor and a member meet it: on a host page of another
 * origin, the visitor picks an element, attaches a screenshot (the capture chunk loads only then),
 * blacks out an area with the pointer and sends; the stored image has those pixels black; a
 * member sees it on the ticket page; a signed-out request of its URL is a 404.
 */
describe('the widget screenshot on a customer page', () => {
  let ferry: FerryHarness;
  let chrome: TestBrowser;
  let hostServer: http.Server;
  let hostUrl: string;
  let workspace: Workspace;

  function hostPage(): string {
    const [stub, tag] = WIDGET_SNIPPET(ferry.url, workspace.public_key).split('\n');
    return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Acme checkout</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
  body { margin: 0; padding: 24px; font-family: sans-serif; background: #ffffff; }
  #secret { display: inline-block; width: 300px; height: 60px; background: #e03131; color: #fff; font-size: 24px; }
  #buy { margin-top: 24px; padding: 12px 20px; background: #2f9e44; color: #fff; border: 0; font-size: 18px; }
</style>
${stub}
</head><body>
<h1>Checkout</h1>
<div id="secret">4111 1111 1111 1111</div>
<div><button id="buy" type="button">Pay now</button></div>
${tag}
</body></html>`;
  }

  beforeAll(async () => {
    [ferry, chrome] = await Promise.all([startFerry(), launchBrowser()]);
    workspace = await createWorkspace(ferry.ctx.db, { name: 'Acme' });
    hostServer = http.createServer((req, res) => {
      const strict = (req.url ?? '').includes('csp=1');
      const headers: Record<string, string> = { 'content-type': 'text/html; charset=utf-8' };
      // A host page with a strict script policy: its own nonce and Ferry's origin only, images
      // from itself only (no data: or blob:), fetches to Ferry only.
      if (strict) {
        headers['content-security-policy'] =
          `default-src 'self'; script-src 'nonce-t3st' ${ferry.url}; connect-src ${ferry.url}; ` +
          `style-src 'self' 'unsafe-inline'; img-src 'self'`;
      }
      res.writeHead(200, headers);
      res.end(strict ? hostPage().replace(/<script>/g, '<script nonce="t3st">') : hostPage());
    });
    await new Promise<void>((resolve) => hostServer.listen(0, '127.0.0.1', resolve));
    hostUrl = `http://127.0.0.1:${(hostServer.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    hostServer?.closeAllConnections();
    await new Promise((resolve) => hostServer?.close(resolve));
    await chrome?.close();
    await ferry?.close();
  });

  it('captures, redacts, sends; a member sees it; signed out gets 404', async () => {
    expect(new URL(hostUrl).origin).not.toBe(new URL(ferry.url).origin);
    const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    const scripts: string[] = [];
    page.on('request', (request) => {
      if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
    });
    await page.goto(hostUrl);
    await page.getByRole('button', { name: 'Send feedback' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send feedback' });
    await dialog.getByLabel('What happened?').fill('The card number shows in full on checkout.');
    // Nothing but v1.js so far: the capture code waits until someone asks for a screenshot.
    expect(scripts).toEqual(['/widget/v1.js']);

    await dialog.getByRole('button', { name: 'Pick an element' }).click();
    const buy = (await page.locator('#buy').boundingBox())!;
    await page.mouse.move(buy.x + buy.width / 2, buy.y + buy.height / 2, { steps: 3 });
    await page.locator('ferry-feedback .pick-box').waitFor();
    await page.mouse.click(buy.x + buy.width / 2, buy.y + buy.height / 2);
    await dialog.getByText('Attached: button#buy').waitFor();

    await dialog.getByRole('button', { name: 'Attach a screenshot' }).click();
    const editor = page.getByRole('dialog', { name: 'Hide anything private' });
    await editor.waitFor();
    expect(scripts).toEqual(['/widget/v1.js', '/widget/v1-capture.js']);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 800 });
      await photograph(page, `${SHOTS}/editor-${width}.png`);
    }
    await page.setViewportSize({ width: 1280, height: 800 });

    // Drag a box over the card number, in page coordinates mapped onto the shown capture.
    const secret = (await page.locator('#secret').boundingBox())!;
    const canvas = editor.locator('canvas');
    const shown = (await canvas.boundingBox())!;
    const scale = shown.width / 1280;
    const from = { x: shown.x + (secret.x - 4) * scale, y: shown.y + (secret.y - 4) * scale };
    const to = {
      x: shown.x + (secret.x + secret.width + 4) * scale,
      y: shown.y + (secret.y + secret.height + 4) * scale,
    };
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move(to.x, to.y, { steps: 5 });
    await page.mouse.up();
    await editor.getByText('1 area blacked out.').waitFor();
    await photograph(page, `${SHOTS}/editor-redacted-1280.png`);
    await editor.getByRole('button', { name: 'Done' }).click();
    await dialog.getByText('Screenshot attached, 1 area blacked out').waitFor();
    await settled(page);
    await photograph(page, `${SHOTS}/panel-attached-1280.png`);
    // Keyboard users can remove it: the button is focused after Done, Remove is next.
    await expect(focusedLabel()).resolves.toBe('Edit screenshot: black out areas');

    await dialog.getByRole('button', { name: 'Send', exact: true }).click();
    await dialog.getByText('Thanks! Your feedback was sent.').waitFor();
    expect(pageErrors).toEqual([]);

    const storedShot = () =>
      ferry.ctx.db
        .selectFrom('feedback_screenshots')
        .innerJoin('feedback', 'feedback.id', 'feedback_screenshots.feedback_id')
        .select(['feedback.id', 'content_type', 'width', 'height', 'bytes', 'element_selector'])
        .where('feedback.workspace_id', '=', workspace.id)
        .executeTakeFirst();
    await waitUntil(async () => Boolean(await storedShot()), 'the ticket with its screenshot');
    const stored = (await storedShot())!;
    expect(stored).toMatchObject({
      content_type: 'image/png',
      width: 1280,
      height: 800,
      element_selector: '#buy',
    });

    // Decode the stored PNG in the browser: inside the box black, the card's red gone; the
    // picked element outlined in the widget's blue; the page around them as it was.
    const pixels = await page.evaluate(
      async ({ b64, secretBox, buyBox }) => {
        const img = new Image();
        img.src = `data:image/png;base64,${b64}`;
        await img.decode();
        const c = document.createElement('canvas');
        c.width = img.width;
        c.height = img.height;
        const ctx = c.getContext('2d')!;
        ctx.drawImage(img, 0, 0);
        const at = (x: number, y: number) => Array.from(ctx.getImageData(x, y, 1, 1).data);
        const inside: number[][] = [];
        for (let x = secretBox.x + 2; x < secretBox.x + secretBox.width - 2; x += 20) {
          for (let y = secretBox.y + 2; y < secretBox.y + secretBox.height - 2; y += 10) {
            inside.push(at(Math.round(x), Math.round(y)));
          }
        }
        return {
          inside,
          outline: at(Math.round(buyBox.x - 2), Math.round(buyBox.y + buyBox.height / 2)),
          button: at(Math.round(buyBox.x + 6), Math.round(buyBox.y + buyBox.height / 2)),
          background: at(5, 5),
        };
      },
      { b64: stored.bytes.toString('base64'), secretBox: secret, buyBox: buy },
    );
    expect(pixels.inside.length).toBeGreaterThan(20);
    for (const px of pixels.inside) expect(px).toEqual([0, 0, 0, 255]);
    expect(pixels.background).toEqual([255, 255, 255, 255]);
    expect(pixels.outline).toEqual([59, 91, 219, 255]);
    expect(pixels.button).toEqual([47, 158, 68, 255]);

    // A member sees it on the ticket page: an image with alt text that opens full size.
    const owner = await createMember(ferry.ctx.db, workspace, { role: 'member' });
    const staff = await context.newPage();
    await signInWithForm(staff, ferry.url, owner.user.email, owner.user.password);
    const ticketUrl = `${ferry.url}/w/${workspace.id}/${workspace.slug}/feedback/${stored.id}`;
    await staff.goto(ticketUrl);
    const image = staff.getByRole('img', { name: /^Screenshot of the page/ });
    await image.waitFor();
    expect(
      await image.evaluate(
        (el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth,
      ),
    ).toBe(1280);
    const link = staff.getByRole('link', { name: 'Open full size' });
    const imageUrl = new URL((await link.getAttribute('href'))!, ferry.url).toString();
    expect(imageUrl).toBe(`${ticketUrl}/screenshot`);
    for (const width of [390, 1280]) {
      await staff.setViewportSize({ width, height: 900 });
      await photograph(staff, `${SHOTS}/ticket-${width}.png`, { fullPage: true });
      // Nothing sideways at either width.
      expect(await staff.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        width,
      );
    }
    const full = await staff.request.get(imageUrl);
    expect(full.status()).toBe(200);
    expect(full.headers()['content-type']).toBe('image/png');

    // Signed out (no cookies at all): 404, no redirect to the login.
    const signedOut = await fetch(imageUrl, { redirect: 'manual' });
    expect(signedOut.status).toBe(404);
    await context.close();

    async function focusedLabel(): Promise<string | null> {
      return focusedIn(page);
    }
  });

  it('works on a host page with a strict Content-Security-Policy', async () => {
    const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    const response = await page.goto(`${hostUrl}/?csp=1`);
    expect(response!.headers()['content-security-policy']).toContain("script-src 'nonce-t3st'");
    // The policy is in force: a script without the nonce does not run.
    await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.unsafeRan = true';
      document.head.appendChild(script);
    });
    expect(await page.evaluate(() => 'unsafeRan' in window)).toBe(false);
    await waitUntil(() => violations.length > 0, 'the console to report the blocked script');
    violations.length = 0;
    await page.getByRole('button', { name: 'Send feedback' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send feedback' });
    await dialog.getByLabel('What happened?').fill('Sent from a page with a strict CSP.');
    await dialog.getByRole('button', { name: 'Attach a screenshot' }).click();
    const editor = page.getByRole('dialog', { name: 'Hide anything private' });
    await editor.waitFor();
    await editor.getByRole('button', { name: 'Done' }).click();
    await dialog.getByText('Screenshot attached').waitFor();
    await dialog.getByRole('button', { name: 'Send', exact: true }).click();
    await dialog.getByText('Thanks! Your feedback was sent.').waitFor();
    const row = await ferry.ctx.db
      .selectFrom('feedback')
      .innerJoin('feedback_screenshots', 'feedback_screenshots.feedback_id', 'feedback.id')
      .select(['feedback_screenshots.width', 'feedback_screenshots.content_type'])
      .where('feedback.note', '=', 'Sent from a page with a strict CSP.')
      .executeTakeFirst();
    expect(row).toEqual({ width: 1280, content_type: 'image/png' });
    expect(violations).toEqual([]);
    await context.close();
  });

  it('on a phone: redacts with touch, and the keyboard can remove the screenshot', async () => {
    const context = await chrome.browser.newContext({
      viewport: { width: 390, height: 844 },
      hasTouch: true,
      isMobile: true,
    });
    const page = await context.newPage();
    await page.goto(hostUrl);
    await page.getByRole('button', { name: 'Send feedback' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send feedback' });
    await dialog.getByRole('button', { name: 'Attach a screenshot' }).click();
    const editor = page.getByRole('dialog', { name: 'Hide anything private' });
    await editor.waitFor();
    await photograph(page, `${SHOTS}/editor-phone-390.png`);

    // A finger drag: pointer events of type touch (the canvas has touch-action: none).
    const canvas = editor.locator('canvas');
    const box = (await canvas.boundingBox())!;
    const point = (fx: number, fy: number) => ({
      clientX: box.x + box.width * fx,
      clientY: box.y + box.height * fy,
      pointerType: 'touch',
      pointerId: 7,
      isPrimary: true,
      bubbles: true,
    });
    expect(await canvas.evaluate((el) => getComputedStyle(el).touchAction)).toBe('none');
    await canvas.dispatchEvent('pointerdown', point(0.1, 0.1));
    await canvas.dispatchEvent('pointermove', point(0.3, 0.2));
    await canvas.dispatchEvent('pointerup', point(0.5, 0.3));
    await editor.getByText('1 area blacked out.').waitFor();
    const black = await canvas.evaluate((el: HTMLCanvasElement) =>
      Array.from(el.getContext('2d')!.getImageData(el.width * 0.3, el.height * 0.2, 1, 1).data),
    );
    expect(black).toEqual([0, 0, 0, 255]);
    await photograph(page, `${SHOTS}/editor-phone-redacted-390.png`);

    // Keyboard only: Done has focus; Tab wraps within the step to Remove screenshot.
    expect(await focusedIn(page)).toBe('Done');
    await page.keyboard.press('Tab');
    expect(await focusedIn(page)).toBe('Remove screenshot');
    await page.keyboard.press('Enter');
    await editor.waitFor({ state: 'hidden' });
    await dialog.waitFor();
    expect(await focusedIn(page)).toBe('Attach a screenshot');
    expect(await dialog.getByText('Screenshot attached').isVisible()).toBe(false);
    await expectVisibleButton(dialog, 'Attach a screenshot');
    await settled(page);
    await photograph(page, `${SHOTS}/panel-phone-390.png`);
    await context.close();
  });
});
