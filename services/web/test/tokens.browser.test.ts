import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember, createWorkspace } from '@ferry/testing';
import {
  photograph,
  launchBrowser,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import { startWeb, type WebHarness } from './harness.js';

const RAW_TOKEN = /fry_[A-Za-z0-9_-]{43}/;

describe('API tokens and the feedback inbox in a browser', () => {
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

  it('creates a token, shows it once, and the token files feedback seen in the inbox', async () => {
    const workspace = await createWorkspace(web.ctx.db, { name: 'Acme Support' });
    const admin = await createMember(web.ctx.db, workspace, { role: 'admin' });
    // Clipboard permissions let the Copy button be checked for real.
    const context = await chrome.browser.newContext({
      permissions: ['clipboard-read', 'clipboard-write'],
      viewport: { width: 1280, height: 860 },
    });
    const page = await context.newPage();

    await signInWithForm(page, web.url, admin.user.email, admin.user.password);
    await page.getByRole('heading', { name: 'Acme Support' }).waitFor();

    await page.getByRole('link', { name: 'API tokens' }).click();
    await page.getByRole('heading', { name: 'API tokens', exact: true }).waitFor();
    await page.getByRole('link', { name: 'New token' }).first().click();
    await page.getByLabel('Name').fill('Production widget');
    await page.getByRole('checkbox', { name: /^tenant:write/ }).check();
    await page.getByRole('checkbox', { name: /^platform:dispatch/ }).check();
    await page.getByRole('button', { name: 'Create token' }).click();

    await page.getByRole('heading', { name: 'Token created' }).waitFor();
    const createdUrl = page.url();
    const raw = (await page.getByTestId('new-token').textContent())?.trim() ?? '';
    expect(raw).toMatch(RAW_TOKEN);
    expect(await page.getByRole('alert').textContent()).toContain('It will not be shown again');
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => window.navigator.clipboard.readText())).toBe(raw);
    await photograph(page, '/tmp/ferry-token-created.png', { fullPage: true });

    // Reload: gone. To the list and Back: gone (never cached). The list shows the prefix only.
    await page.reload();
    await page.getByText('cannot be shown again').first().waitFor();
    expect(await page.content()).not.toContain(raw);
    await page.getByRole('link', { name: 'Back to API tokens' }).click();
    await page.getByRole('heading', { name: 'API tokens', exact: true }).waitFor();
    const list = await page.content();
    expect(list).not.toContain(raw);
    expect(list).toContain(`${raw.slice(0, 12)}…`);
    await page.goBack();
    expect(page.url()).toBe(createdUrl);
    expect(await page.content()).not.toContain(raw);

    // The raw value files a ticket through the API.
    const filed = await fetch(`${web.url}/api/v1/feedback`, {
      method: 'POST',
      headers: { authorization: `Bearer ${raw}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        note: 'The Pay button does nothing on Safari 17. Tried twice, cleared the cache too.',
        title: 'Pay button does nothing',
        reporter: { label: 'Ada Lovelace', role: 'customer', email: 'ada@example.test' },
        page: {
          url: 'https://shop.example.test/checkout?step=2',
          path: '/checkout',
          controller_action: 'checkout#show',
          viewport: { width: 1280, height: 800 },
          partials: ['layouts/_application', 'shared/_nav', 'checkout/_summary', 'checkout/_form'],
        },
        element: {
          selector: 'form#pay > button.primary',
          tag: 'button',
          text: 'Pay now',
          outer_html: '<button class="primary" type="submit" data-action="pay">Pay now</button>',
        },
      }),
    });
    expect(filed.status).toBe(201);
    const ticket = (await filed.json()) as { id: string };

    // Last used shows on the list now.
    await page.goto(`${web.url}/w/${workspace.id}/${workspace.slug}/settings/tokens`);
    await page.locator('table.tokens').getByText('Production widget').first().waitFor();
    expect(await page.locator('table.tokens tbody tr').first().textContent()).toMatch(/just now/);
    await photograph(page, '/tmp/ferry-tokens.png', { fullPage: true });

    await page.getByRole('link', { name: 'Feedback' }).click();
    await page.getByRole('link', { name: 'Pay button does nothing' }).waitFor();
    expect(await page.locator('table.inbox').textContent()).toContain('Ada Lovelace (customer)');
    await photograph(page, '/tmp/ferry-inbox.png', { fullPage: true });

    await page.getByRole('link', { name: 'Pay button does nothing' }).click();
    await page.waitForURL(`**/feedback/${ticket.id}`);
    await page.getByRole('heading', { name: 'Picked element' }).waitFor();
    expect(await page.locator('pre.outer-html').textContent()).toBe(
      '<button class="primary" type="submit" data-action="pay">Pay now</button>',
    );
    expect(await page.locator('.messages').textContent()).toContain('New feedback from Ada');
    await photograph(page, '/tmp/ferry-ticket.png', { fullPage: true });
    await context.close();
  });
});
