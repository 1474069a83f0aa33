import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { waitUntil } from '@ferry/testing';
import { photograph, launchBrowser, type TestBrowser } from '@ferry/testing/browser';
import type { BrowserContext, Page } from 'playwright-core';
import { buildWidget, WIDGET_SNIPPET, type WidgetBuild } from '../src/index.js';

/**
 * The bundle in Debian's Chromium, on a host page served from one loopback origin while the
 * bundle and its endpoints come from another. The endpoint recorder only stands in for web's
 * real `/widget/v1/*` and ingest-errors' `/ingest/errors`; the end-to-end test lives with web.
 */

const KEY = 'pk_test_widget';
const VISITOR_TOKEN = 'vtok_test1';
const SHOTS = '/tmp/ferry-shots';
const VIEWPORT = { width: 1280, height: 800 };

interface Recorded {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

interface Recorder {
  url: string;
  requests: Recorded[];
  /**
   * Per-path status override (e.g. 503), and a per-path hold: the answer waits until the promise
   * settles (a test looks at the page's "sending" state, then lets the answer go).
   */
  status: Record<string, number>;
  hold: Record<string, Promise<void>>;
  close(): Promise<void>;
}

const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Content-Type, X-Service-Tenant, X-Service-Visitor',
  'Access-Control-Max-Age': '600',
};

const ANSWERS: Record<string, [number, unknown]> = {
  '/widget/v1/visitors': [201, { visitor: { id: 'vis_test1', token: VISITOR_TOKEN } }],
  '/widget/v1/feedback': [201, { feedback: { id: 'fb_test1' } }],
  '/ingest/errors': [202, { accepted: 1, ids: ['err_test1'] }],
  '/widget/v1/visitors/identity': [204, null],
};

function listen(server: http.Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    });
  });
}

function closeServer(server: http.Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** The bundle plus a recorder for the three endpoints it posts to (CORS like the real ones). */
async function startRecorder(bundle: WidgetBuild): Promise<Recorder> {
  const recorder = { requests: [] as Recorded[], status: {}, hold: {} } as Omit<
    Recorder,
    'url' | 'close'
  >;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      if (req.method === 'GET' && path === '/widget/v1.js') {
        res.writeHead(200, {
          'Content-Type': 'application/javascript; charset=utf-8',
          // The snippet loads it with crossorigin="anonymous", as web serves it.
          'Access-Control-Allow-Origin': '*',
          ETag: bundle.etag,
          'Cache-Control': 'no-cache',
        });
        res.end(bundle.code);
        return;
      }
      // Issue 45: the workspace's widget settings, read at load (capture off here).
      if (req.method === 'GET' && path === '/widget/v1/config') {
        res.writeHead(200, { ...CORS, 'Content-Type': 'application/json' });
        res.end('{"capture":false}');
        return;
      }
      if (req.method === 'OPTIONS') {
        res.writeHead(204, CORS);
        res.end();
        return;
      }
      const answer = ANSWERS[path];
      if (req.method !== 'POST' || !answer) {
        res.writeHead(404, CORS);
        res.end();
        return;
      }
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = raw;
      try {
        body = JSON.parse(raw);
      } catch {
        // kept as text
      }
      recorder.requests.push({ method: req.method, path, headers: req.headers, body });
      const status = recorder.status[path] ?? answer[0];
      const reply =
        status < 300
          ? answer[1]
          : { error: { code: 'unavailable', message: 'The service is unavailable.' } };
      void (recorder.hold[path] ?? Promise.resolve()).then(() => {
        res.writeHead(status, { ...CORS, 'Content-Type': 'application/json' });
        res.end(JSON.stringify(reply));
      });
    });
  });
  const url = await listen(server);
  return Object.assign(recorder, { url, close: () => closeServer(server) });
}

type Variant = 'plain' | 'hostile' | 'sabotage';

/** A Rails-like host page: partial comments, a controller#action meta, buttons, the snippet. */
function hostPage(variant: Variant, widgetBase: string): string {
  const [stub, tag] = WIDGET_SNIPPET(widgetBase, KEY).split('\n');
  const rows = Array.from(
    { length: 45 },
    (_, i) =>
      `<!-- BEGIN app/views/orders/_row.html.erb --><!-- BEGIN app/views/shared/_row_${i}.html.erb --><!-- END -->`,
  ).join('\n');
  const longText = 'Handmade stoneware, glazed twice, dishwasher safe. '.repeat(12);
  const hostile =
    variant === 'hostile'
      ? `* { all: unset !important; }
         button { display: none !important; }
         body > * { opacity: 0.3 !important; transform: scale(0.5) !important; }`
      : '';
  const sabotage =
    variant === 'sabotage'
      ? '<script>Element.prototype.attachShadow = function () { return null; };</script>'
      : '';
  return `<!doctype html>
<!-- BEGIN app/views/layouts/application.html.erb -->
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="service-controller-action" content="orders#show">
<title>Acme Shop · Order 1042</title>
<style>
  html { font-size: 10px; }
  body { margin: 0; padding: 32px 48px; font-family: Georgia, serif; background: #fbfaf6; color: #222; }
  header { display: flex; justify-content: space-between; align-items: center; border-bottom: 1px solid #ddd; }
  main { display: grid; grid-template-columns: 1fr 1fr; gap: 32px; margin-top: 24px; }
  section { background: #fff; border: 1px solid #e5e2d9; border-radius: 6px; padding: 20px; }
  button { font: inherit; padding: 8px 16px; border-radius: 4px; border: 1px solid #999; background: #eee; }
  button.primary { background: #2f7d32; color: #fff; border-color: #2f7d32; }
  li { margin: 8px 0; }
  ${hostile}
</style>
<script>
  window.globalsBefore = Object.getOwnPropertyNames(window);
  window.bench = {};
  new MutationObserver(function (_, observer) {
    var host = document.querySelector('ferry-feedback');
    var button = host && host.shadowRoot && host.shadowRoot.querySelector('.launcher');
    if (button && button.getBoundingClientRect().width > 0) {
      window.bench.visible = performance.now();
      observer.disconnect();
    }
  }).observe(document.documentElement, { childList: true, subtree: true });
  // A script's load event fires once it has run: was the launcher already laid out by then?
  document.addEventListener('load', function (event) {
    if (event.target.src && event.target.src.endsWith('/widget/v1.js')) {
      window.bench.visibleAtScriptLoad = window.bench.visible !== undefined;
    }
  }, true);
</script>
${sabotage}
</head>
<body>
<!-- BEGIN app/views/orders/_header.html.erb -->
<header><h1>Order #1042</h1><nav><a href="#help">Help</a></nav></header>
<!-- END app/views/orders/_header.html.erb -->
<main>
<!-- BEGIN app/views/orders/_summary.html.erb -->
<section id="summary">
  <h2>Summary</h2>
  <p>Two items, shipping to Lisbon.</p>
  <button id="buy" class="primary big" type="button">Pay   now</button>
  <button type="button" class="secondary">Save for later</button>
  <p id="dup">First duplicate id</p><p id="dup">Second duplicate id</p>
</section>
<!-- END app/views/orders/_summary.html.erb -->
<!-- BEGIN app/views/orders/_items.html.erb -->
<section>
  <h2>Items</h2>
  <ul id="items">
    <li>Blue mug, 2 x $12.00</li>
    <li class="long">Stoneware plate. ${longText}</li>
  </ul>
</section>
<!-- END app/views/orders/_items.html.erb -->
</main>
${rows}
<script>
  window.pageClicks = 0;
  document.getElementById('buy').addEventListener('click', function () { window.pageClicks++; });
</script>
${stub}
<script>
  service('identify', { label: 'Ada Lovelace', role: 'Billing admin' });
  service('reportError', new Error('queued before load'), { phase: 'boot' });
  service('no-such-command', 1, 2);
</script>
${tag}
</body>
</html>
<!-- END app/views/layouts/application.html.erb -->`;
}

async function startHost(widgetBase: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.url === '/favicon.ico') {
      res.writeHead(204);
      res.end();
      return;
    }
    const variant = (new URL(req.url ?? '/', 'http://x').searchParams.get('v') ??
      'plain') as Variant;
    if (!['plain', 'hostile', 'sabotage'].includes(variant) || !req.url?.startsWith('/?')) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(hostPage(variant, widgetBase));
  });
  const url = await listen(server);
  return { url, close: () => closeServer(server) };
}

/** What the page's console and uncaught errors said while the test ran. */
function watchConsole(page: Page): { errors: string[]; pageErrors: string[] } {
  const seen = { errors: [] as string[], pageErrors: [] as string[] };
  page.on('console', (message) => {
    if (message.type() === 'error') seen.errors.push(message.text());
  });
  page.on('pageerror', (error) => seen.pageErrors.push(error.message));
  return seen;
}

/** Describes the focused element inside the widget's shadow root (or outside it). */
function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    const host = document.querySelector('ferry-feedback');
    if (document.activeElement !== host) return `page:${document.activeElement?.localName}`;
    const el = host?.shadowRoot?.activeElement as HTMLElement | null | undefined;
    if (!el) return 'none';
    return el.id || el.getAttribute('aria-label') || el.textContent?.trim() || el.localName;
  });
}

describe('the widget bundle in a browser', () => {
  let bundle: WidgetBuild;
  let recorder: Recorder;
  let host: { url: string; close(): Promise<void> };
  let chrome: TestBrowser;
  let context: BrowserContext;
  let scriptUrl: string;

  beforeAll(async () => {
    bundle = await buildWidget();
    recorder = await startRecorder(bundle);
    host = await startHost(recorder.url);
    scriptUrl = `${recorder.url}/widget/v1.js`;
    chrome = await launchBrowser();
  });
  afterAll(async () => {
    await context?.close();
    await chrome?.close();
    await host?.close();
    await recorder?.close();
  });
  beforeEach(async () => {
    await context?.close();
    context = await chrome.browser.newContext({ viewport: VIEWPORT });
    recorder.requests.length = 0;
    for (const key of Object.keys(recorder.status)) delete recorder.status[key];
    for (const key of Object.keys(recorder.hold)) delete recorder.hold[key];
  });

  const posts = (path: string) => recorder.requests.filter((r) => r.path === path);
  const errorReports = () =>
    posts('/ingest/errors').flatMap(
      (r) => (r.body as { errors: Record<string, unknown>[] }).errors,
    );

  // How quickly, in milliseconds, is bench:widget's figure (against a same-size trivial script, in
  // one run): a wall-clock bound here failed on a saturated host (699 ms) while proving nothing
  // about the widget. This asserts the cause instead: nothing stands between the bundle running and
  // the launcher showing (no timer, fetch or idle callback).
  it('shows the launcher as soon as its bundle has run and adds no globals besides window.service', async () => {
    const page = await context.newPage();
    const seen = watchConsole(page);
    await page.goto(`${host.url}/?v=plain`);
    const launcher = page.getByRole('button', { name: 'Send feedback' });
    await launcher.waitFor();
    expect(await launcher.innerText()).toBe('Feedback');
    const box = (await launcher.boundingBox())!;
    expect(box.x + box.width).toBeGreaterThan(VIEWPORT.width - 40);
    expect(box.y + box.height).toBeGreaterThan(VIEWPORT.height - 40);

    const timing = await page.evaluate((url) => {
      const entry = performance.getEntriesByName(url)[0] as PerformanceResourceTiming;
      const bench = (
        window as unknown as { bench: { visible: number; visibleAtScriptLoad?: boolean } }
      ).bench;
      return {
        loaded: entry.responseEnd,
        visible: bench.visible,
        visibleAtScriptLoad: bench.visibleAtScriptLoad,
      };
    }, scriptUrl);
    const ms = timing.visible - timing.loaded;
    console.log(
      `widget: launcher visible ${ms.toFixed(1)} ms after the bundle finished loading ` +
        `(${timing.visible.toFixed(0)} ms after navigation start); bundle ${bundle.bytes} B raw, ${bundle.gzipBytes} B gzipped`,
    );
    expect(timing.visibleAtScriptLoad).toBe(true);

    const added = await page.evaluate(() => {
      const before = new Set((window as unknown as { globalsBefore: string[] }).globalsBefore);
      return Object.getOwnPropertyNames(window).filter(
        (name) => !before.has(name) && !['globalsBefore', 'bench', 'pageClicks'].includes(name),
      );
    });
    expect(added).toEqual(['service']);
    expect(await page.evaluate(() => typeof (window as { service?: unknown }).service)).toBe(
      'function',
    );
    await photograph(page, `${SHOTS}/widget-launcher.png`);
    expect(seen).toEqual({ errors: [], pageErrors: [] });
  });

  it('opens a labelled modal panel that traps focus and closes on Escape', async () => {
    const page = await context.newPage();
    await page.goto(`${host.url}/?v=plain`);
    const launcher = page.getByRole('button', { name: 'Send feedback' });
    await launcher.waitFor();
    // service('open') opens it just like the launcher does.
    await page.evaluate(() => {
      (window as unknown as { service: (...args: unknown[]) => void }).service('open');
    });
    const dialog = page.getByRole('dialog', { name: 'Send feedback' });
    await dialog.waitFor();
    expect(await dialog.getAttribute('aria-modal')).toBe('true');
    expect(await launcher.getAttribute('aria-expanded')).toBe('true');
    await expectVisible(dialog.getByLabel('What happened?'));
    // identify() gave a name, so only the email is asked for.
    await expectVisible(dialog.getByLabel('Email'));
    expect(await dialog.getByLabel('Your name').isVisible()).toBe(false);
    await expectVisible(dialog.getByRole('button', { name: 'Pick an element' }));
    const width = (await dialog.boundingBox())!.width;
    expect(Math.round(width)).toBe(340);

    expect(await focused(page)).toBe('ferry-note');
    await dialog.getByLabel('What happened?').fill('The total does not include shipping.');
    const order: string[] = [];
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      order.push(await focused(page));
    }
    expect(order).toEqual([
      'ferry-email',
      'Pick an element',
      'Attach a screenshot',
      'Send',
      'Close',
      'ferry-note',
    ]);
    await page.keyboard.press('Shift+Tab');
    expect(await focused(page)).toBe('Close');
    await page.keyboard.press('Shift+Tab');
    expect(await focused(page)).toBe('Send');
    await photograph(page, `${SHOTS}/widget-panel.png`);

    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await focused(page)).toBe('Send feedback');
    expect(await launcher.getAttribute('aria-expanded')).toBe('false');

    // Narrow screens: full width minus 16px. A later identify() with an email hides both fields.
    await page.evaluate(() => {
      (window as unknown as { service: (...args: unknown[]) => void }).service('identify', {
        label: 'Ada Lovelace',
        email: 'ada@example.test',
      });
    });
    await page.setViewportSize({ width: 360, height: 640 });
    await launcher.click();
    expect(Math.round((await dialog.boundingBox())!.width)).toBe(360 - 16);
    expect(await dialog.getByLabel('Email').isVisible()).toBe(false);
    expect(await dialog.getByLabel('Your name').isVisible()).toBe(false);
  });

  it('picks an element without the page seeing the click, then sends feedback with context', async () => {
    const page = await context.newPage();
    const seen = watchConsole(page);
    await page.goto(`${host.url}/?v=plain`);
    await page.getByRole('button', { name: 'Send feedback' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send feedback' });
    await dialog
      .getByLabel('What happened?')
      .fill('The Pay button does nothing on the first click.');
    await dialog.getByRole('button', { name: 'Pick an element' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const hint = page.getByText('Click an element to attach it · Esc to cancel');
    await hint.waitFor();

    // Escape cancels: the panel comes back with nothing attached.
    await page.keyboard.press('Escape');
    await dialog.waitFor();
    await expectVisible(dialog.getByRole('button', { name: 'Pick an element' }));
    expect(await hint.count()).toBe(0);

    await dialog.getByRole('button', { name: 'Pick an element' }).click();
    const buy = (await page.locator('#buy').boundingBox())!;
    await page.mouse.move(buy.x + buy.width / 2, buy.y + buy.height / 2, { steps: 3 });
    const outline = page.locator('ferry-feedback .pick-box');
    await outline.waitFor();
    await waitUntil(async () => {
      const box = await outline.boundingBox();
      return !!box && Math.abs(box.x - buy.x) <= 1 && Math.abs(box.width - buy.width) <= 1;
    }, 'the outline to cover #buy');
    expect(await outline.evaluate((el) => getComputedStyle(el).pointerEvents)).toBe('none');
    await photograph(page, `${SHOTS}/widget-picker.png`);
    await page.mouse.click(buy.x + buy.width / 2, buy.y + buy.height / 2);

    await dialog.waitFor();
    await expectVisible(dialog.getByText('Attached: button#buy.primary.big'));
    expect(
      await page.evaluate(() => (window as unknown as { pageClicks: number }).pageClicks),
    ).toBe(0);
    // The page itself still works once the picker is gone.
    await page.evaluate(() => document.getElementById('buy')!.click());
    expect(
      await page.evaluate(() => (window as unknown as { pageClicks: number }).pageClicks),
    ).toBe(1);

    await dialog.getByLabel('Email').fill('ada@example.test');
    // The answer is held until the "sending" state has been looked at (a 700 ms delay was
    // outrun on a slow host, and the button had changed before it was read).
    let answer = (): void => undefined;
    recorder.hold['/widget/v1/feedback'] = new Promise((release) => (answer = release));
    await dialog.getByRole('button', { name: 'Send' }).click();
    const sending = dialog.getByRole('button', { name: 'Sending…' });
    await sending.waitFor();
    expect(await sending.getAttribute('aria-disabled')).toBe('true');
    await photograph(page, `${SHOTS}/widget-sending.png`);
    answer();
    await expectVisible(dialog.getByText('Thanks! Your feedback was sent.'));
    await photograph(page, `${SHOTS}/widget-sent.png`);

    const [sent] = posts('/widget/v1/feedback');
    expect(sent!.headers['x-service-tenant']).toBe(KEY);
    expect(sent!.headers['x-service-visitor']).toBe(VISITOR_TOKEN);
    expect(sent!.headers['content-type']).toBe('application/json');
    const body = sent!.body as {
      note: string;
      reporter: unknown;
      page: { url: string; path: string; partials: string[]; [k: string]: unknown };
      element: { selector: string; tag: string; text: string; outer_html: string };
    };
    expect(body.note).toBe('The Pay button does nothing on the first click.');
    expect(body.reporter).toEqual({
      label: 'Ada Lovelace',
      role: 'Billing admin',
      email: 'ada@example.test',
    });
    expect(body.page.url).toBe(`${host.url}/?v=plain`);
    expect(body.page.path).toBe('/');
    expect(body.page.controller_action).toBe('orders#show');
    expect(body.page.viewport).toEqual(VIEWPORT);
    expect(body.page.partials).toHaveLength(40);
    expect(body.page.partials.slice(0, 6)).toEqual([
      'app/views/layouts/application.html.erb',
      'app/views/orders/_header.html.erb',
      'app/views/orders/_summary.html.erb',
      'app/views/orders/_items.html.erb',
      'app/views/orders/_row.html.erb',
      'app/views/shared/_row_0.html.erb',
    ]);
    expect(body.page.partials[39]).toBe('app/views/shared/_row_17.html.erb');
    expect(body.element).toEqual({
      selector: '#buy',
      tag: 'button',
      text: 'Pay now',
      outer_html: '<button id="buy" class="primary big" type="button">Pay   now</button>',
    });

    // The visitor was created once and kept for this workspace.
    expect(posts('/widget/v1/visitors')).toHaveLength(1);
    expect(posts('/widget/v1/visitors')[0]!.headers['x-service-tenant']).toBe(KEY);
    expect(posts('/widget/v1/visitors')[0]!.body).toEqual({});
    const stored = await page.evaluate((key) => localStorage.getItem(`ferry.visitor.${key}`), KEY);
    expect(JSON.parse(stored!)).toEqual({ id: 'vis_test1', token: VISITOR_TOKEN });

    // Close; the form was reset. A second ticket picks an element without a unique id.
    await dialog.getByRole('button', { name: 'Close' }).last().click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('button', { name: 'Send feedback' }).click();
    expect(await dialog.getByLabel('What happened?').inputValue()).toBe('');
    await expectVisible(dialog.getByRole('button', { name: 'Pick an element' }));
    await dialog.getByLabel('What happened?').fill('This description is cut off.');
    await dialog.getByRole('button', { name: 'Pick an element' }).click();
    const item = (await page.locator('#items li.long').boundingBox())!;
    await page.mouse.move(item.x + 20, item.y + 5);
    await page.mouse.click(item.x + 20, item.y + 5);
    await expectVisible(dialog.getByText('Attached: li.long'));
    await dialog.getByRole('button', { name: 'Send' }).click();
    await expectVisible(dialog.getByText('Thanks! Your feedback was sent.'));
    const second = posts('/widget/v1/feedback')[1]!.body as {
      element: { selector: string; tag: string; text: string; outer_html: string };
    };
    expect(second.element.selector).toBe('#items > li:nth-of-type(2)');
    expect(second.element.tag).toBe('li');
    expect(second.element.outer_html).toHaveLength(400);
    expect(second.element.outer_html.startsWith('<li class="long">Stoneware plate.')).toBe(true);
    expect(second.element.text).toMatch(/^Stoneware plate\. Handmade stoneware, glazed twice/);
    expect(second.element.text).not.toMatch(/\s{2}/);
    expect(
      await page.evaluate(
        (selector) => document.querySelector(selector) === document.querySelector('li.long'),
        second.element.selector,
      ),
    ).toBe(true);
    expect(posts('/widget/v1/visitors')).toHaveLength(1);
    expect(posts('/widget/v1/feedback')[1]!.headers['x-service-visitor']).toBe(VISITOR_TOKEN);
    expect(seen).toEqual({ errors: [], pageErrors: [] });
  });

  it('reports its own errors and explicit calls (at most 5), never other scripts’ errors', async () => {
    const page = await context.newPage();
    const seen = watchConsole(page);
    await page.goto(`${host.url}/?v=plain`);
    await page.getByRole('button', { name: 'Send feedback' }).waitFor();

    // The call queued before the bundle loaded is sent once it has.
    await waitUntil(() => errorReports().length === 1, 'the queued report');
    const [queued] = posts('/ingest/errors');
    expect(queued!.headers['x-service-tenant']).toBe(KEY);
    expect(queued!.headers['x-service-visitor']).toBe(VISITOR_TOKEN);
    expect((queued!.body as { source: string }).source).toBe('js');
    const first = errorReports()[0]!;
    expect(first).toMatchObject({
      error_class: 'Error',
      message: 'queued before load',
      url: `${host.url}/?v=plain`,
      environment: 'browser',
      context: { phase: 'boot' },
    });
    expect(Array.isArray(first.backtrace)).toBe(true);
    // Frames only: V8's `Error: message` header on top would make each message its own group.
    expect((first.backtrace as string[])[0]).toMatch(/^\s*at /);
    expect(Date.parse(first.occurred_at as string)).toBeGreaterThan(Date.now() - 60_000);

    // Errors from the page's own scripts are not the widget's business.
    await page.evaluate(() => {
      setTimeout(() => {
        throw new Error('host page bug');
      });
      void Promise.reject(new Error('host page rejection'));
    });
    await waitUntil(() => seen.pageErrors.length >= 2, 'the host errors to happen');

    // Failures whose top frame is the bundle are reported (ErrorEvent.filename or the stack).
    await page.evaluate((url) => {
      const error = new TypeError('widget render failed');
      error.stack = `TypeError: widget render failed\n    at render (${url}:1:2345)\n    at ${location.href}:3:9`;
      void Promise.reject(error);
      window.dispatchEvent(
        new ErrorEvent('error', { message: 'Uncaught boom', filename: url, lineno: 1, colno: 99 }),
      );
    }, scriptUrl);
    // Explicit calls: anything goes, within the same cap of 5 per page load.
    await page.evaluate(() => {
      const service = (window as unknown as { service: (...args: unknown[]) => void }).service;
      service('reportError', 'plain string', { n: 4 });
      service('reportError', new RangeError('fifth'), 'not an object');
      service('reportError', new Error('sixth'), { n: 6 });
    });
    await waitUntil(() => errorReports().length === 5, 'five reports');
    await page.waitForTimeout(400);
    const reports = errorReports();
    expect(reports).toHaveLength(5);
    expect(reports.map((r) => r.message).sort()).toEqual(
      [
        'queued before load',
        'widget render failed',
        'Uncaught boom',
        'plain string',
        'fifth',
      ].sort(),
    );
    const byMessage = (m: string) => reports.find((r) => r.message === m)!;
    expect(byMessage('widget render failed')).toMatchObject({
      error_class: 'TypeError',
      context: {},
    });
    expect(byMessage('plain string')).toMatchObject({
      error_class: 'Error',
      backtrace: [],
      context: { n: 4 },
    });
    expect(byMessage('fifth')).toMatchObject({ error_class: 'RangeError', context: {} });
    expect(byMessage('widget render failed').backtrace).toEqual([
      `    at render (${scriptUrl}:1:2345)`,
      `    at ${host.url}/?v=plain:3:9`,
    ]);
    expect(byMessage('Uncaught boom').backtrace).toEqual([`    at ${scriptUrl}:1:99`]);
    for (const post of posts('/ingest/errors')) {
      expect(post.headers['x-service-visitor']).toBe(VISITOR_TOKEN);
    }
    expect(posts('/widget/v1/visitors')).toHaveLength(1);
    // identify() went with the first report, once (not again with each): the Errors page names
    // the visitor by it, never by their token (#28).
    const identities = posts('/widget/v1/visitors/identity');
    expect(identities).toHaveLength(1);
    expect(identities[0]!.headers['x-service-visitor']).toBe(VISITOR_TOKEN);
    expect(identities[0]!.body).toEqual({ label: 'Ada Lovelace', role: 'Billing admin' });
    expect(seen.errors.filter((text) => !/host page/.test(text))).toEqual([]);
    // The page's own uncaught errors (and the simulated one) stay the page's: reported by the
    // browser as usual, untouched by the widget.
    expect(seen.pageErrors.sort()).toEqual([
      'host page bug',
      'host page rejection',
      'widget render failed',
    ]);
  });

  it('reports a failure inside the bundle itself, without an uncaught error on the page', async () => {
    const page = await context.newPage();
    const seen = watchConsole(page);
    await page.goto(`${host.url}/?v=sabotage`);
    await waitUntil(() => errorReports().some((r) => r.error_class === 'TypeError'), 'the report');
    const report = errorReports().find((r) => r.error_class === 'TypeError')!;
    const backtrace = report.backtrace as string[];
    expect(backtrace.find((line) => /^\s*at /.test(line))).toContain(scriptUrl);
    expect(seen).toEqual({ errors: [], pageErrors: [] });
    // service() still answers (and ignores what it cannot do) without throwing.
    await page.evaluate(() => {
      const service = (window as unknown as { service: (...args: unknown[]) => void }).service;
      service('open');
      service('identify', null);
      service();
    });
    expect(seen.pageErrors).toEqual([]);
  });

  it('keeps a usable launcher under hostile page CSS', async () => {
    const page = await context.newPage();
    await page.goto(`${host.url}/?v=hostile`);
    // The page's rules did apply to its own content...
    expect(await page.locator('#buy').isVisible()).toBe(false);
    // ...but not to the widget.
    const launcher = page.getByRole('button', { name: 'Send feedback' });
    await launcher.waitFor();
    const box = (await launcher.boundingBox())!;
    expect(box.width).toBeGreaterThan(90);
    expect(box.height).toBe(44);
    expect(Math.round(box.x + box.width)).toBe(VIEWPORT.width - 20);
    expect(Math.round(box.y + box.height)).toBe(VIEWPORT.height - 20);
    const style = await page.evaluate(() => {
      const hostEl = document.querySelector('ferry-feedback')!;
      const button = hostEl.shadowRoot!.querySelector('.launcher')!;
      const { x, y, width, height } = button.getBoundingClientRect();
      return {
        hit: document.elementFromPoint(x + width / 2, y + height / 2) === hostEl,
        host: getComputedStyle(hostEl).position,
        opacity: getComputedStyle(hostEl).opacity,
        transform: getComputedStyle(hostEl).transform,
        background: getComputedStyle(button).backgroundColor,
      };
    });
    expect(style).toEqual({
      hit: true,
      host: 'fixed',
      opacity: '1',
      transform: 'none',
      background: 'rgb(59, 91, 219)',
    });
    await launcher.click();
    const dialog = page.getByRole('dialog', { name: 'Send feedback' });
    await dialog.getByLabel('What happened?').fill('Still usable.');
    await dialog.getByLabel('Email').fill('ada@example.test');
    await photograph(page, `${SHOTS}/widget-hostile.png`);
    await dialog.getByRole('button', { name: 'Send' }).click();
    await expectVisible(dialog.getByText('Thanks! Your feedback was sent.'));
  });

  it('swallows failing endpoints: no console error, an inline error with Try again', async () => {
    recorder.status['/ingest/errors'] = 503;
    recorder.status['/widget/v1/feedback'] = 503;
    recorder.status['/widget/v1/visitors'] = 503;
    const page = await context.newPage();
    const seen = watchConsole(page);
    await page.goto(`${host.url}/?v=plain`);
    await waitUntil(() => posts('/ingest/errors').length === 1, 'the queued report');
    await page.evaluate(() => {
      const service = (window as unknown as { service: (...args: unknown[]) => void }).service;
      service('reportError', new Error('while ingest is down'), {});
    });
    await waitUntil(() => posts('/ingest/errors').length === 2, 'the second report');
    // No visitor: reports go without the header.
    expect(posts('/ingest/errors')[1]!.headers['x-service-visitor']).toBeUndefined();

    await page.getByRole('button', { name: 'Send feedback' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send feedback' });
    await dialog.getByRole('button', { name: 'Send' }).click();
    await expectVisible(dialog.getByText('Tell us what happened.'));
    expect(posts('/widget/v1/feedback')).toHaveLength(0);
    await dialog.getByLabel('What happened?').fill('Checkout is slow today.');
    await dialog.getByLabel('Email').fill('not-an-email');
    await dialog.getByRole('button', { name: 'Send' }).click();
    await expectVisible(dialog.getByText('Enter a valid email address.'));
    await dialog.getByLabel('Email').fill('');
    await dialog.getByRole('button', { name: 'Send' }).click();
    const alert = dialog.getByRole('alert');
    await expectVisible(alert.getByText('We could not send your feedback.', { exact: false }));
    await photograph(page, `${SHOTS}/widget-error.png`);
    expect(await dialog.getByLabel('What happened?').inputValue()).toBe('Checkout is slow today.');

    // The service comes back: Try again sends the same note.
    delete recorder.status['/widget/v1/feedback'];
    delete recorder.status['/widget/v1/visitors'];
    await alert.getByRole('button', { name: 'Try again' }).click();
    await expectVisible(dialog.getByText('Thanks! Your feedback was sent.'));
    const sent = posts('/widget/v1/feedback');
    expect((sent[sent.length - 1]!.body as { note: string }).note).toBe('Checkout is slow today.');
    expect(sent[sent.length - 1]!.headers['x-service-visitor']).toBe(VISITOR_TOKEN);

    // Only the browser's own network log lines (which no script can suppress) may appear.
    expect(seen.errors.filter((text) => !/^Failed to load resource/.test(text))).toEqual([]);
    expect(seen.pageErrors).toEqual([]);
  });
});

async function expectVisible(locator: ReturnType<Page['locator']>): Promise<void> {
  await locator.waitFor({ state: 'visible' });
  expect(await locator.isVisible()).toBe(true);
}
