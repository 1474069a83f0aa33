import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { createMember, createWorkspace, Receiver } from '@ferry/testing';
import {
  checkBothWidths,
  launchBrowser,
  photograph,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import { fileFeedback, webhookTestSchema } from '@ferry/workspace';
import { startFerry, type FerryHarness } from './support/ferry.js';

const SHOTS = '/tmp/shots/event-webhooks';

/**
 * Settings → Event webhooks in a browser, everything real (pages, outbox relay, webhooks-out):
 * an admin adds an endpoint through the form, reveals its secret, sends a test event (a signed
 * webhook.test that arrives and shows in the log), a filed ticket is delivered, and "Send again"
 * from the log sends it once more with the same webhook-id. The list, the endpoint page and the
 * catalog pass axe without sideways scroll at 1280 and 390 px (screenshots with FERRY_TEST_SHOTS).
 * Deleting the endpoint asks first.
 */
describe('event webhooks in a browser', () => {
  let web: FerryHarness;
  let chrome: TestBrowser;
  let receiver: Receiver;

  beforeAll(async () => {
    web = await startFerry({ ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' });
    receiver = await new Receiver().start();
    chrome = await launchBrowser();
  });
  afterAll(async () => {
    await chrome?.close();
    await receiver?.close();
    await web?.close();
  });

  function stringHeaders(headers: IncomingHttpHeaders): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [key, value] of Object.entries(headers)) {
      if (typeof value === 'string') out[key] = value;
    }
    return out;
  }

  /** Both widths checked (axe, no sideways scroll), and the whole page photographed at each. */
  async function shoot(page: Page, name: string) {
    await checkBothWidths(page, `${SHOTS}/${name}`);
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await photograph(page, `${SHOTS}/${name}-full-${width}.png`, { fullPage: true });
    }
  }

  it('adds an endpoint, sends a test event and a delivery again, and the pages fit both widths', async () => {
    const workspace = await createWorkspace(web.ctx.db, { name: 'Acme Events' });
    const admin = await createMember(web.ctx.db, workspace, { role: 'admin' });
    const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signInWithForm(page, web.url, admin.user.email, admin.user.password);
    await page.getByRole('heading', { name: 'Acme Events' }).waitFor();
    const list = `${web.url}/w/${workspace.id}/${workspace.slug}/settings/event-webhooks`;

    await page.goto(list);
    await page.getByRole('heading', { name: 'Event webhooks' }).waitFor();
    await shoot(page, 'list-empty');
    await page.getByLabel('URL').fill(`${receiver.url}/ferry-events`);
    await page.getByLabel('Description').fill('Incident tool <staging & prod>');
    await page.getByLabel('feedback.created').check();
    await page.getByLabel('error.group.regressed').check();
    await page.getByLabel('Environments (error events)').fill('production, staging');
    await page.getByLabel('Rate limit (deliveries a second)').fill('20');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    // The refused description came back as a form error, typed text kept as text.
    await page.getByText('cannot contain <, > or control characters').waitFor();
    await page.getByLabel('Description').fill('Incident tool (staging and prod)');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByText('The endpoint is ready').waitFor();
    const endpointUrl = page.url();

    await page.getByRole('button', { name: 'Reveal' }).click();
    const secret = ((await page.getByTestId('signing-secret').textContent()) ?? '').trim();
    expect(secret).toMatch(/^whsec_/);

    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText(/test event \(webhook\.test\)/).waitFor();
    await receiver.waitFor(1);
    const test = receiver.requests[0]!;
    new StandardWebhook(secret).verify(test.body, stringHeaders(test.headers));
    expect(test.headers['x-service-event']).toBe('webhook.test');
    const parsed = webhookTestSchema.parse(JSON.parse(test.body));
    expect(parsed.data.endpoint.url).toBe(`${receiver.url}/ferry-events`);
    await page.goto(endpointUrl);
    await page.getByTestId('delivery').filter({ hasText: 'webhook.test' }).waitFor();

    await fileFeedback(web.ctx.db, workspace.id, {
      note: 'The checkout button is grey',
      title: null,
    });
    await receiver.waitFor(2);
    await page.goto(endpointUrl);
    const row = page.getByTestId('delivery').filter({ hasText: 'feedback.created' });
    await row.waitFor();
    await row.getByRole('button', { name: 'Send again' }).click();
    await page.getByText(/Sent again with the same webhook-id/).waitFor();
    await receiver.waitFor(3);
    const [, first, again] = receiver.requests;
    expect(again!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(again!.body).toBe(first!.body);
    new StandardWebhook(secret).verify(again!.body, stringHeaders(again!.headers));

    await page.goto(endpointUrl);
    await shoot(page, 'endpoint');
    await page.goto(list);
    await page.getByTestId('endpoint').waitFor();
    await shoot(page, 'list');
    await page.goto(`${list}/catalog`);
    await page.getByTestId('test-event').waitFor();
    await shoot(page, 'catalog');

    // Delete asks first, on a page of its own; Cancel keeps the endpoint, the button deletes it.
    await page.goto(endpointUrl);
    await page.getByRole('link', { name: 'Delete' }).click();
    await page.getByRole('heading', { name: /^Delete the endpoint/ }).waitFor();
    await shoot(page, 'delete-confirm');
    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.getByRole('heading', { name: 'Endpoint' }).waitFor();
    await page.getByRole('link', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Delete endpoint' }).click();
    await page.getByText('Endpoint deleted.').waitFor();
    expect(await page.getByTestId('endpoint').count()).toBe(0);
    await context.close();
  });
});
