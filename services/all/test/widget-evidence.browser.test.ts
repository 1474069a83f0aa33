/* eslint-disable @typescript-eslint/unbound-method -- the page's functions are compared, never called */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Workspace } from '@ferry/db';
import { createMember, createWorkspace, waitUntil } from '@ferry/testing';
import {
  checkBothWidths,
  launchBrowser,
  photograph,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import { WIDGET_SNIPPET } from '@ferry/widget';
import { saveWidgetSettings } from '@ferry/workspace';
import type { Page, Request } from 'playwright-core';
import { startFerry, type FerryHarness } from './support/ferry.js';

const SHOTS = '/tmp/ferry-shots/widget-evidence';

/** What must appear nowhere once the report is sent: not in the request, the row or the page. */
const CARD = '4111 1111 1111 1111';
const BEARER = 'Bearer eyJhbGciOiJIUzI1NiJ9.hunter2payload';
const QUERY_TOKEN = 'qtok_9f8e7d6c5b';
const SECRETS = [CARD, '4111111111111111', 'hunter2payload', QUERY_TOKEN];

/**
 * The customer's app, served from the host origin: `shop.run()` does what a real page does before
 * someone reports a problem (logs, fetches and XHRs that succeed and fail, a route change, an
 * uncaught error and an unhandled rejection); `shop.probe()` records what the page itself sees of
 * fetch, XMLHttpRequest, console, onerror and history, to compare with and without the widget.
 */
const APP_JS = `
window.shop = {
  run: async function () {
    console.log('cart loaded', { items: 2, Authorization: '${BEARER}', nested: { deep: 1 } });
    console.warn('paying with card ${CARD}');
    console.error('Payment failed: gateway said no');
    await fetch('/api/cart?token=${QUERY_TOKEN}&page=2').then(function (r) { return r.text(); });
    await fetch('/api/fail', { method: 'POST' });
    await fetch('http://127.0.0.1:9/refused').catch(function () {});
    await new Promise(function (resolve) {
      var x = new XMLHttpRequest(); x.open('GET', '/api/cart'); x.onloadend = resolve; x.send();
    });
    await new Promise(function (resolve) {
      var x = new XMLHttpRequest(); x.open('GET', '/api/missing'); x.onloadend = resolve; x.send();
    });
    history.pushState({ step: 2 }, '', '/checkout/step-2?coupon=SAVE10');
    location.hash = '#pay';
    await new Promise(function (resolve) { window.addEventListener('hashchange', resolve, { once: true }); });
    await new Promise(function (resolve) {
      window.addEventListener('error', function () { resolve(); }, { once: true });
      setTimeout(function checkoutStep() { throw new TypeError('Checkout exploded'); });
    });
    await new Promise(function (resolve) {
      window.addEventListener('unhandledrejection', function () { resolve(); }, { once: true });
      Promise.reject(new Error('Payment promise rejected'));
    });
  },
  probe: async function () {
    var out = {};
    var p = fetch('/api/cart');
    out.fetchIsPromise = p instanceof Promise;
    var r = await p;
    out.fetchOk = [r.status, r.ok, await r.text(), r.headers.get('x-shop'), r instanceof Response];
    var f = await fetch('/api/fail', { method: 'POST', body: 'x' });
    out.fetchFail = [f.status, await f.text()];
    out.fetchRefused = await fetch('http://127.0.0.1:9/x').then(
      function () { return 'resolved'; },
      function (e) { return [e.constructor.name, e.name, e.message]; });
    out.fetchBadUrl = await fetch('http://[::1').then(
      function () { return 'resolved'; }, function (e) { return [e.name, e.message]; });
    try {
      out.fetchWrongThis = await fetch.call({}, '/api/cart').then(
        function () { return 'resolved'; }, function (e) { return ['async', e.name]; });
    } catch (e) { out.fetchWrongThis = ['sync', e.name]; }
    out.fetchShape = [fetch.length, fetch.name, typeof fetch];
    out.fetchUnhandled = await new Promise(function (resolve) {
      var done = false;
      function seen(ev) { if (done) return; done = true; ev.preventDefault(); resolve('unhandled ' + ev.reason.name); }
      window.addEventListener('unhandledrejection', seen, { once: true });
      fetch('http://127.0.0.1:9/y');
      // Only a bound for the failure case (the event comes within milliseconds): long enough that
      // a loaded host never reaches it while the event is on its way.
      setTimeout(function () { if (!done) { done = true; resolve('no unhandledrejection for a refused fetch within 30 s'); } }, 30000);
    });
    out.xhr = await new Promise(function (resolve) {
      var x = new XMLHttpRequest(); var events = [];
      ['readystatechange', 'loadstart', 'load', 'loadend'].forEach(function (type) {
        x.addEventListener(type, function () { events.push(type + ':' + x.readyState); });
      });
      out.xhrOpenReturns = String(x.open('GET', '/api/cart?x=1'));
      out.xhrSendReturns = String(x.send());
      x.onloadend = function () { resolve([x.status, x.responseText, x.getResponseHeader('x-shop'), events]); };
    });
    try { new XMLHttpRequest().open('BAD METHOD', '/'); out.xhrBadMethod = 'no throw'; }
    catch (e) { out.xhrBadMethod = [e.name, e.message]; }
    out.xhrShape = [XMLHttpRequest.prototype.open.length, XMLHttpRequest.prototype.send.length];
    out.consoleLog = String(console.log('probe', { a: 1 }));
    try { console.debug('x'); out.consoleThrows = 'no throw'; } catch (e) { out.consoleThrows = e.message; }
    out.consoleThis = console.info('who am I');
    var custom = { log: console.log };
    out.consoleShape = [console.log.length, console.log.name];
    out.customConsole = String(custom.log('called on another object'));
    out.onerror = await new Promise(function (resolve) {
      window.onerror = function (message, source, line, col, error) {
        resolve([String(message), source.slice(-6), error && error.message, this === window]);
        return true;
      };
      setTimeout(function () { throw new RangeError('probe boom'); });
    });
    window.onerror = null;
    out.pushState = [String(history.pushState({ n: 1 }, '', '/probe?x=1')), history.state, location.pathname];
    try { history.pushState({}, '', 'https://elsewhere.test/'); out.pushStateCross = 'no throw'; }
    catch (e) { out.pushStateCross = e.name; }
    out.getterCalls = window.getterCalls;
    console.log({ get secret() { window.getterCalls += 1; return 'x'; } });
    out.getterCallsAfter = window.getterCalls;
    return out;
  },
};
`;

/** The host's own setup before the widget: a console method that throws, one that uses `this`. */
const HOST_SETUP = `window.getterCalls = 0;
console.debug = function () { throw new Error('debug is off on this site'); };
console.info = function () { return this === console ? 'this is console' : 'this is lost'; };`;

describe('evidence from a customer page on another origin', () => {
  let ferry: FerryHarness;
  let chrome: TestBrowser;
  let hostServer: http.Server;
  let hostUrl: string;
  let on: Workspace;
  let off: Workspace;

  function hostPage(workspace: Workspace | null): string {
    const [stub, tag] = workspace
      ? WIDGET_SNIPPET(ferry.url, workspace.public_key).split('\n')
      : ['', ''];
    return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Acme checkout</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
${stub}
<script>${HOST_SETUP}</script>
<script src="/app.js"></script>
</head><body><h1>Checkout</h1><main><p>Two items.</p></main>
${tag}
</body></html>`;
  }

  beforeAll(async () => {
    [ferry, chrome] = await Promise.all([startFerry(), launchBrowser()]);
    on = await createWorkspace(ferry.ctx.db, { name: 'Acme On' });
    off = await createWorkspace(ferry.ctx.db, { name: 'Acme Off' });
    await saveWidgetSettings(ferry.ctx.db, on.id, { capture: true });
    hostServer = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://host');
      const send = (status: number, type: string, body: string) => {
        res.writeHead(status, {
          'content-type': type,
          'content-length': Buffer.byteLength(body),
          'x-shop': 'yes',
        });
        res.end(body);
      };
      if (url.pathname === '/app.js') return send(200, 'application/javascript', APP_JS);
      if (url.pathname === '/api/cart') return send(200, 'application/json', '{"items":2}');
      if (url.pathname === '/api/fail') return send(500, 'text/plain', 'gateway down');
      if (url.pathname.startsWith('/api/')) return send(404, 'text/plain', 'no such thing');
      const which = url.searchParams.get('ws');
      return send(
        200,
        'text/html; charset=utf-8',
        hostPage(which === 'on' ? on : which === 'off' ? off : null),
      );
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

  /** A fresh page on the host with the widget of `ws`, once its config has answered. */
  async function open(ws: 'on' | 'off') {
    const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const requests: Request[] = [];
    page.on('request', (request) => requests.push(request));
    await page.goto(`${hostUrl}/?ws=${ws}`);
    await page.getByRole('button', { name: 'Send feedback' }).waitFor();
    const key = (ws === 'on' ? on : off).public_key;
    await page.waitForFunction((k) => localStorage.getItem(`ferry.capture.${k}`) !== null, key, {
      timeout: 10_000,
    });
    return { context, page, requests };
  }

  async function fileFeedback(page: Page, note: string): Promise<void> {
    const dialog = page.getByRole('dialog', { name: 'Send feedback' });
    await dialog.getByLabel('What happened?').fill(note);
    await dialog.getByRole('button', { name: 'Send', exact: true }).click();
    await dialog.getByText('Thanks! Your feedback was sent.').waitFor();
  }

  async function ticketOf(workspace: Workspace, note: string) {
    const find = () =>
      ferry.ctx.db
        .selectFrom('feedback')
        .leftJoin('feedback_evidence', 'feedback_evidence.feedback_id', 'feedback.id')
        .select([
          'feedback.id',
          'feedback_evidence.entries',
          'feedback_evidence.dropped',
          'feedback_evidence.byte_size',
        ])
        .where('feedback.workspace_id', '=', workspace.id)
        .where('feedback.note', '=', note)
        .executeTakeFirst();
    await waitUntil(async () => Boolean(await find()), `the ticket "${note}"`);
    return (await find())!;
  }

  const feedbackBody = (requests: Request[]) => {
    const sent = requests.filter((r) => r.url().endsWith('/widget/v1/feedback'));
    expect(sent).toHaveLength(1);
    return sent[0]!.postData() ?? '';
  };

  it('attaches the right timeline, scrubbed, and the ticket page shows it at 390 and 1280 px', async () => {
    expect(new URL(hostUrl).origin).not.toBe(new URL(ferry.url).origin);
    const { context, page, requests } = await open('on');
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.evaluate(() => (window as unknown as { shop: { run(): Promise<void> } }).shop.run());
    // The page's own errors happened (the host sees them as always)...
    expect(pageErrors).toContain('Checkout exploded');

    await page.getByRole('button', { name: 'Send feedback' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send feedback' });
    await dialog
      .getByText(
        '3 console lines, 5 requests (3 failed), 2 page errors, 3 route changes will be attached',
      )
      .waitFor();
    await fileFeedback(page, 'Payment fails at checkout');

    // ...and went with the ticket only: nothing was reported to the Errors page.
    expect(requests.filter((r) => r.url().includes('/ingest/errors'))).toEqual([]);
    const body = feedbackBody(requests);
    expect(body).toContain('"evidence"');
    for (const secret of SECRETS) expect(body).not.toContain(secret);

    const ticket = await ticketOf(on, 'Payment fails at checkout');
    const entries = ticket.entries!;
    const json = JSON.stringify(ticket);
    for (const secret of SECRETS) expect(json).not.toContain(secret);
    // In the order they happened.
    expect(entries.map((e) => e.type)).toEqual([
      'console',
      'console',
      'console',
      'network',
      'network',
      'network',
      'network',
      'network',
      'navigation',
      'navigation',
      'navigation',
      'error',
      'error',
    ]);
    const [log, warn] = entries;
    expect(log).toMatchObject({
      level: 'log',
      text: 'cart loaded {items: 2, Authorization: [Filtered], nested: {…}}',
    });
    expect(warn).toMatchObject({ level: 'warn', text: 'paying with card [Filtered]' });
    const network = entries.filter((e) => e.type === 'network');
    expect(network.map((n) => [n.kind, n.method, n.url.replace(hostUrl, ''), n.status])).toEqual([
      ['fetch', 'GET', '/api/cart?token=*&page=*', 200],
      ['fetch', 'POST', '/api/fail', 500],
      ['fetch', 'GET', 'http://127.0.0.1:9/refused', 0],
      ['xhr', 'GET', '/api/cart', 200],
      ['xhr', 'GET', '/api/missing', 404],
    ]);
    expect(network[0]).toMatchObject({ size: 11 });
    const routes = entries.filter((e) => e.type === 'navigation');
    expect(routes.map((r) => [r.kind, r.url.replace(hostUrl, '')])).toEqual([
      ['push', '/checkout/step-2?coupon=*'],
      ['pop', '/checkout/step-2?coupon=*#pay'],
      ['hash', '/checkout/step-2?coupon=*#pay'],
    ]);
    const errors = entries.filter((e) => e.type === 'error');
    expect(errors.map((e) => [e.kind, e.name, e.message])).toEqual([
      ['error', 'TypeError', 'Checkout exploded'],
      ['rejection', 'Error', 'Payment promise rejected'],
    ]);
    expect(errors[0]!.stack).toContain('checkoutStep');
    await context.close();

    // A member reads it on the ticket page.
    const member = await createMember(ferry.ctx.db, on, { role: 'member' });
    const staffContext = await chrome.browser.newContext();
    const staff = await staffContext.newPage();
    await signInWithForm(staff, ferry.url, member.user.email, member.user.password);
    await staff.goto(`${ferry.url}/w/${on.id}/${on.slug}/feedback/${ticket.id}`);
    const card = staff.getByRole('region', { name: 'Before the report' });
    await card.waitFor();
    expect(await card.locator('.tl-item').count()).toBe(13);
    // Failed requests (500, no answer, 404) and both errors are the highlighted ones.
    const bad = await card.locator('.tl-bad').allInnerTexts();
    expect(bad).toHaveLength(5);
    expect(bad.join('\n')).toMatch(/500[\s\S]*no answer[\s\S]*404[\s\S]*Checkout exploded/);
    await card.locator('summary', { hasText: 'TypeError: Checkout exploded' }).click();
    await card.getByText(/at checkoutStep/).waitFor();
    const html = await staff.content();
    for (const secret of SECRETS) expect(html).not.toContain(secret);
    await checkBothWidths(staff, `${SHOTS}/ticket-timeline`, { shoot: card });
    await staffContext.close();
  });

  it('lets the person remove it before sending', async () => {
    const { context, page, requests } = await open('on');
    await page.evaluate(() => (window as unknown as { shop: { run(): Promise<void> } }).shop.run());
    await page.getByRole('button', { name: 'Send feedback' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send feedback' });
    await dialog.getByText(/will be attached/).waitFor();
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      // After the panel's opening animation, so the picture shows it as a person reads it.
      await page.waitForFunction(() =>
        document
          .querySelector('ferry-feedback')!
          .shadowRoot!.getAnimations()
          .every((a) => a.playState !== 'running'),
      );
      await photograph(page, `${SHOTS}/panel-summary-${width}.png`);
    }
    await dialog.getByRole('button', { name: 'Remove console and network activity' }).click();
    expect(await dialog.getByText(/will be attached/).isVisible()).toBe(false);
    await fileFeedback(page, 'Sent without activity');
    expect(feedbackBody(requests)).not.toContain('"evidence"');
    expect((await ticketOf(on, 'Sent without activity')).entries).toBeNull();
    await context.close();
  });

  it('is absent when the setting is off: native functions, no summary, nothing sent', async () => {
    const { context, page, requests } = await open('off');
    const natives = () =>
      page.evaluate(() =>
        [
          window.fetch,
          console.log,
          console.warn,
          XMLHttpRequest.prototype.open,
          XMLHttpRequest.prototype.send,
          history.pushState,
        ].every((fn) => Function.prototype.toString.call(fn).includes('[native code]')),
      );
    expect(await natives()).toBe(true);
    await page.evaluate(() => (window as unknown as { shop: { run(): Promise<void> } }).shop.run());
    await page.getByRole('button', { name: 'Send feedback' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send feedback' });
    await dialog.getByLabel('What happened?').waitFor();
    expect(await dialog.getByText(/will be attached/).count()).toBe(0);
    await fileFeedback(page, 'No capture here');
    expect(feedbackBody(requests)).not.toContain('"evidence"');
    expect((await ticketOf(off, 'No capture here')).entries).toBeNull();

    // The next page view remembers the answer: with the config call held unanswered, nothing of
    // the page's is wrapped at all.
    await context.route('**/widget/v1/config**', () => {
      // Never answered: the widget must not need it to stay out of the way.
    });
    const second = await context.newPage();
    await second.goto(`${hostUrl}/?ws=off`);
    await second.getByRole('button', { name: 'Send feedback' }).waitFor();
    expect(
      await second.evaluate(() =>
        [window.fetch, console.log, XMLHttpRequest.prototype.send, history.pushState].every((fn) =>
          Function.prototype.toString.call(fn).includes('[native code]'),
        ),
      ),
    ).toBe(true);
    await context.close();
  });

  it('leaves what the page sees of fetch, XHR, console, onerror and history unchanged', async () => {
    const results: Record<string, unknown>[] = [];
    for (const ws of ['none', 'on'] as const) {
      const context = await chrome.browser.newContext();
      const page = await context.newPage();
      await page.goto(`${hostUrl}/?ws=${ws}`);
      if (ws === 'on') {
        await page.getByRole('button', { name: 'Send feedback' }).waitFor();
        // The wrappers are in place for this run.
        expect(
          await page.evaluate(() => Function.prototype.toString.call(window.fetch)),
        ).not.toContain('[native code]');
      }
      results.push(
        await page.evaluate(() =>
          (
            window as unknown as { shop: { probe(): Promise<Record<string, unknown>> } }
          ).shop.probe(),
        ),
      );
      await context.close();
    }
    const [without, withWidget] = results;
    expect(without!.fetchUnhandled).toBe('unhandled TypeError');
    expect(without!.consoleThrows).toBe('debug is off on this site');
    expect(without!.consoleThis).toBe('this is console');
    expect(without!.getterCallsAfter).toBe(0);
    expect(withWidget).toEqual(without);
  });
});
