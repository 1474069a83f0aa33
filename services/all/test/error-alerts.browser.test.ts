import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { createMember, createRoom, createWorkspace, Receiver } from '@ferry/testing';
import {
  photograph,
  launchBrowser,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import type { ErrorAlertPayload } from '@ferry/workspace';
import { startFerry, type FerryHarness } from './support/ferry.js';

const run = promisify(execFile);

/**
 * Issues 26 and 43, as an admin meets it on `pnpm start`: Settings > Error alerts adds two rules
 * (a room, a URL, production only; and one for the agent) and opens the first, an error is posted with curl to /ingest/errors, and the alert from
 * "Errors" arrives live in the open room while the URL gets its signed POST. Screenshots of the
 * rules list, the rule page and the room at 390 and 1280 px go to /tmp/ferry-error-alerts-*.png.
 */
describe('error alerts on pnpm start', () => {
  let ferry: FerryHarness;
  let chrome: TestBrowser;
  let receiver: Receiver;

  beforeAll(async () => {
    [ferry, chrome, receiver] = await Promise.all([
      // The receiver is on loopback: private targets allowed, as in every webhook browser test.
      startFerry({ ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' }),
      launchBrowser(),
      new Receiver().start(),
    ]);
  });
  afterAll(async () => {
    await chrome?.close();
    await receiver?.close();
    await ferry?.close();
  });

  it('sets a rule in Settings, posts an error with curl, and sees the alert arrive live', async () => {
    const { db } = ferry.ctx;
    const workspace = await createWorkspace(db, { name: 'Acme Shop' });
    const admin = await createMember(db, workspace, { role: 'admin' });
    const room = await createRoom(db, workspace, { name: 'oncall', members: [admin] });
    const base = `${ferry.url}/w/${workspace.id}/${workspace.slug}`;

    const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    try {
      await signInWithForm(page, ferry.url, admin.user.email, admin.user.password);
      await page.waitForURL(/\/w\//);
      await page.goto(`${base}/settings/error-alerts`);
      expect(await page.getByTestId('no-alert-rules').isVisible()).toBe(true);
      // Issue 43: a first rule (room, URL, production only), then a second one for the agent.
      let form = page.getByTestId('error-alerts-form');
      await form.getByLabel('Name').fill('Production, new errors');
      await form.getByLabel('A new error appears').check();
      await form.getByLabel('Room').selectOption({ label: '#oncall' });
      await form.getByLabel('URL', { exact: true }).fill(`${receiver.url}/alerts`);
      await form.getByLabel('Environments').fill('production');
      await form.getByRole('button', { name: 'Add rule' }).click();
      await page.getByText('Alert rule added.').waitFor();
      form = page.getByTestId('error-alerts-form');
      await form.getByLabel('Name').fill('Fatal regressions go to the agent');
      await form.getByLabel('A new error appears').uncheck();
      await form.getByLabel('A resolved error comes back').check();
      await form.getByLabel('Levels').fill('fatal');
      await form.getByLabel('Tags').fill('feature=checkout-*');
      await form.getByLabel('Hand it to the agent').check();
      await form.getByRole('button', { name: 'Add rule' }).click();
      await page.getByText('Alert rule added.').waitFor();
      const rules = page.getByTestId('alert-rule');
      expect(await rules.count()).toBe(2);
      expect(await rules.nth(1).textContent()).toContain('hand to the agent');
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 900 });
        await photograph(page, `/tmp/ferry-error-alerts-rules-${width}.png`, { fullPage: true });
      }
      await page.setViewportSize({ width: 1280, height: 900 });

      await rules.first().getByRole('link', { name: 'Edit' }).click();
      expect(await page.getByLabel('A new error appears').isChecked()).toBe(true);
      await page.getByRole('button', { name: 'Reveal signing secret' }).click();
      const secret = (await page.getByTestId('alert-secret').textContent())?.trim() ?? '';
      expect(secret).toMatch(/^whsec_/);
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 900 });
        await photograph(page, `/tmp/ferry-error-alerts-settings-${width}.png`, { fullPage: true });
      }
      await page.setViewportSize({ width: 1280, height: 900 });

      await page.goto(`${base}/rooms/${room.id}`);
      await page.locator('.room[data-connected="true"]').waitFor();
      expect(await page.locator('li.message').count()).toBe(0);

      const report = {
        errors: [
          {
            error_class: 'PaymentGateway::Timeout',
            message: 'charge timed out after 30s',
            backtrace: ['app/services/charge.rb:42:in `call`', 'app/jobs/checkout.rb:9'],
            environment: 'production',
          },
        ],
        source: 'ruby',
      };
      const { stdout } = await run('curl', [
        '-sS',
        '-X',
        'POST',
        `${ferry.url}/ingest/errors`,
        '-H',
        `X-Service-Tenant: ${workspace.public_key}`,
        '-H',
        'Content-Type: application/json',
        '-d',
        JSON.stringify(report),
        '-w',
        '\n%{http_code}',
      ]);
      expect(stdout.trim().split('\n').at(-1)).toBe('202');

      const alert = page.locator('li.message', { hasText: 'PaymentGateway::Timeout' });
      await alert.waitFor({ timeout: 30_000 });
      expect(await alert.locator('.author').textContent()).toBe('Errors');
      const text = (await alert.textContent()) ?? '';
      expect(text).toContain('New error');
      expect(text).toContain('charge timed out after 30s');
      expect(text).toContain('app/services/charge.rb:42');
      expect(text).toContain('production');
      const link = alert.getByRole('link', { name: 'Open the error group' });
      expect(await link.getAttribute('href')).toMatch(
        new RegExp(`^${ferry.url}/w/${workspace.id}/${workspace.slug}/errors/egr_`),
      );
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 900 });
        await photograph(page, `/tmp/ferry-error-alerts-room-${width}.png`);
      }

      await receiver.waitFor(1);
      const request = receiver.requests[0]!;
      const headers: Record<string, string> = {};
      for (const [key, value] of Object.entries(request.headers)) {
        if (typeof value === 'string') headers[key] = value;
      }
      new Webhook(secret).verify(request.body, headers);
      const payload = JSON.parse(request.body) as ErrorAlertPayload;
      expect(payload.type).toBe('error_group.created');
      expect(payload.data.group.error_class).toBe('PaymentGateway::Timeout');

      // The group page the link opens.
      await page.goto((await link.getAttribute('href'))!);
      expect(await page.locator('h1').first().textContent()).toContain('PaymentGateway::Timeout');
    } catch (error) {
      await page.screenshot({ path: '/tmp/ferry-error-alerts-failed.png', fullPage: true });
      throw error;
    } finally {
      await context.close();
    }
  });
});
