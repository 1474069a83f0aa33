import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFerryClient } from '@ferry/client';
import type { Workspace } from '@ferry/db';
import { createApiToken, createMember, createWorkspace, waitUntil } from '@ferry/testing';
import {
  photograph,
  launchBrowser,
  signInWithForm,
  type TestBrowser,
} from '@ferry/testing/browser';
import { WIDGET_SNIPPET } from '@ferry/widget';
import { SCREENSHOT_BODY_LIMIT } from '@ferry/workspace';
import { startFerry, type FerryHarness } from './support/ferry.js';

const SHOTS = '/tmp/ferry-shots';

/**
 * The widget as a customer's visitor meets it: a host page on its own origin embeds the snippet
 * pointing at `pnpm start`. Feedback picked and sent from there becomes a ticket with its context
 * and visitor; the bundle's own errors reach the Errors page with the visitor (five at most per
 * page load), other scripts' errors do not; hostile page CSS leaves the widget usable; the public
 * endpoints answer bad input with 4xx and CORS headers.
 */
describe('the widget on a customer page', () => {
  let ferry: FerryHarness;
  let chrome: TestBrowser;
  let hostServer: http.Server;
  let hostUrl: string;
  let workspace: Workspace;

  function hostPage(variant: string): string {
    const [stub, tag] = WIDGET_SNIPPET(ferry.url, workspace.public_key).split('\n');
    const partials = Array.from(
      { length: 45 },
      (_, i) => `<!-- BEGIN app/views/items/_item_${i + 1}.html.erb --><li>Item ${i + 1}</li>`,
    ).join('\n');
    const hostile =
      variant === 'hostile'
        ? '<style>* { all: unset !important; } button { display: none !important; }</style>'
        : '';
    return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="service-controller-action" content="orders#show">
<title>Acme</title>${hostile}
${stub}
<script>
  service('identify', { label: 'Ada Lovelace', role: 'Billing admin', email: 'ada@example.test' });
  service('reportError', new Error('queued before the bundle'), { when: 'before load' });
  window.pageClicks = 0;
</script>
</head><body>
<!-- BEGIN app/views/orders/show.html.erb -->
<h1>Order 1042</h1>
<!-- BEGIN app/views/orders/_summary.html.erb -->
<button id="buy" type="button" onclick="window.pageClicks++">Pay now</button>
<button id="boom" type="button" onclick="setTimeout(function () { throw new Error('page script failure'); })">Break the page</button>
<ul>${partials}</ul>
${tag}
</body></html>`;
  }

  beforeAll(async () => {
    [ferry, chrome] = await Promise.all([startFerry(), launchBrowser()]);
    workspace = await createWorkspace(ferry.ctx.db, { name: 'Acme' });
    hostServer = http.createServer((req, res) => {
      const variant = new URL(req.url ?? '/', 'http://x').searchParams.get('v') ?? 'plain';
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(hostPage(variant));
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

  const occurrences = () =>
    ferry.ctx.db
      .selectFrom('error_occurrences')
      .select(['message', 'visitor_id', 'environment', 'url'])
      .where('workspace_id', '=', workspace.id)
      .execute();

  it('files a picked element as a ticket with its context and visitor; reports only its own errors', async () => {
    const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const consoleErrors: string[] = [];
    page.on('pageerror', (error) => consoleErrors.push(`pageerror: ${error.message}`));
    await page.goto(`${hostUrl}/?v=plain`);

    // The report queued before the bundle loaded arrives, with the visitor.
    await waitUntil(
      async () => (await occurrences()).some((o) => o.message === 'queued before the bundle'),
      'the queued report to be stored',
    );

    await page.getByRole('button', { name: 'Send feedback' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send feedback' });
    await dialog.getByLabel('What happened?').fill('Pay does nothing on the first click.');
    await dialog.getByRole('button', { name: 'Pick an element' }).click();
    const buy = (await page.locator('#buy').boundingBox())!;
    await page.mouse.move(buy.x + buy.width / 2, buy.y + buy.height / 2, { steps: 3 });
    await page.locator('ferry-feedback .pick-box').waitFor();
    await page.mouse.click(buy.x + buy.width / 2, buy.y + buy.height / 2);
    await dialog.getByText('Attached:').waitFor();
    expect(
      await page.evaluate(() => (window as unknown as { pageClicks: number }).pageClicks),
    ).toBe(0);
    await dialog.getByRole('button', { name: 'Send' }).click();
    await dialog.getByText('Thanks! Your feedback was sent.').waitFor();
    await photograph(page, `${SHOTS}/widget-e2e-sent.png`);

    const token = (await createApiToken(ferry.ctx.db, workspace, { scopes: ['tenant:read'] })).raw;
    // Read back through the typed client generated from the API description.
    const api = createFerryClient(ferry.url, token);
    const { data: list } = await api.GET('/api/v1/feedback');
    const id = list!.feedback[0]!.id;
    const { data: ticket } = await api.GET('/api/v1/feedback/{id}', { params: { path: { id } } });
    if (!ticket) throw new Error(`GET /api/v1/feedback/${id} answered no ticket`);
    expect(ticket.note).toBe('Pay does nothing on the first click.');
    expect(ticket.reporter).toEqual({
      label: 'Ada Lovelace',
      role: 'Billing admin',
      email: 'ada@example.test',
    });
    expect(ticket.page.url).toBe(`${hostUrl}/?v=plain`);
    expect(ticket.page.controller_action).toBe('orders#show');
    expect(ticket.page.viewport).toEqual({ width: 1280, height: 800 });
    expect(ticket.page.partials).toHaveLength(40);
    expect(ticket.page.partials.slice(0, 3)).toEqual([
      'app/views/orders/show.html.erb',
      'app/views/orders/_summary.html.erb',
      'app/views/items/_item_1.html.erb',
    ]);
    expect(ticket.element).toMatchObject({ selector: '#buy', tag: 'button', text: 'Pay now' });
    expect(ticket.element.outer_html!.length).toBeLessThanOrEqual(400);
    expect(ticket.element.outer_html).toMatch(/^<button id="buy"/);
    expect(ticket.visitor_id).toMatch(/^vis_/);
    // Filed as the API files it: its feedback_filed event, for local agents.
    const filed = await ferry.ctx.db
      .selectFrom('outbox')
      .select('payload')
      .where('type', '=', 'feedback_filed')
      .execute();
    expect(filed.some((e) => JSON.stringify(e.payload).includes(id))).toBe(true);

    // Another script's error is not the widget's business.
    await page.locator('#boom').click();
    // Explicit reports count toward the 5 a page load may send (one went already).
    await page.evaluate(() => {
      const service = (window as unknown as { service: (...args: unknown[]) => void }).service;
      for (let i = 1; i <= 6; i++) service('reportError', new Error(`explicit ${i}`), { i });
    });
    await waitUntil(async () => (await occurrences()).length >= 5, 'five reports to be stored');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const stored = await occurrences();
    expect(stored.map((o) => o.message).sort()).toEqual([
      'explicit 1',
      'explicit 2',
      'explicit 3',
      'explicit 4',
      'queued before the bundle',
    ]);
    for (const o of stored) {
      expect(o.visitor_id).toBe(ticket.visitor_id);
      expect(o.environment).toBe('browser');
    }
    expect(consoleErrors.filter((e) => !e.includes('page script failure'))).toEqual([]);

    // The ticket page names the visitor.
    const owner = await createMember(ferry.ctx.db, workspace, { role: 'owner' });
    const staff = await context.newPage();
    await signInWithForm(staff, ferry.url, owner.user.email, owner.user.password);
    await staff.goto(`${ferry.url}/w/${workspace.id}/${workspace.slug}/feedback/${id}`);
    await staff.getByText(ticket.visitor_id!).first().waitFor();
    await photograph(staff, `${SHOTS}/widget-e2e-ticket.png`, { fullPage: true });

    // The install page shows this workspace's snippet; the preview runs the real widget.
    const settings = `${ferry.url}/w/${workspace.id}/${workspace.slug}/settings/widget`;
    await staff.goto(settings);
    await staff.getByText(`data-key="${workspace.public_key}"`).first().waitFor();
    await photograph(staff, `${SHOTS}/widget-e2e-install.png`, { fullPage: true });
    await staff.goto(`${settings}/preview`);
    await staff.getByRole('button', { name: 'Send feedback' }).waitFor();
    await photograph(staff, `${SHOTS}/widget-e2e-preview.png`);
    await context.close();
  });

  it('leaves no console error on the host page when error ingestion answers 503', async () => {
    const context = await chrome.browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      // Chromium itself logs every failed fetch ("Failed to load resource"); no script can stop
      // that line, so it is the one console error allowed here.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
        problems.push(message.text());
      }
    });
    let refused = 0;
    await page.route(`${ferry.url}/ingest/errors`, (route) => {
      refused++;
      return route.fulfill({
        status: 503,
        headers: { 'access-control-allow-origin': '*', 'content-type': 'application/json' },
        body: '{"error":{"code":"unavailable","message":"down"}}',
      });
    });
    await page.goto(`${hostUrl}/?v=plain`);
    await page.getByRole('button', { name: 'Send feedback' }).waitFor();
    await page.evaluate(() => {
      const service = (window as unknown as { service: (...args: unknown[]) => void }).service;
      service('reportError', new Error('while ingest is down'), {});
    });
    await waitUntil(() => refused >= 2, 'both reports to meet the 503');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(problems).toEqual([]);
    await context.close();
  });

  it('stays usable under the host page’s hostile CSS', async () => {
    const context = await chrome.browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${hostUrl}/?v=hostile`);
    const launcher = page.getByRole('button', { name: 'Send feedback' });
    await launcher.waitFor();
    const box = (await launcher.boundingBox())!;
    expect(box.width).toBeGreaterThan(30);
    await launcher.click();
    await page.getByRole('dialog', { name: 'Send feedback' }).waitFor();
    await photograph(page, `${SHOTS}/widget-e2e-hostile-390.png`);
    await context.close();
  });

  it('answers bad input on its public endpoints with 4xx and CORS headers, never 5xx', async () => {
    const post = (path: string, body: string, headers: Record<string, string> = {}) =>
      fetch(`${ferry.url}/widget/v1/${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          origin: hostUrl,
          'x-service-tenant': workspace.public_key,
          ...headers,
        },
        body,
      });
    const cases: Array<[string, Response, number]> = [
      ['malformed JSON', await post('feedback', '{"note":'), 400],
      ['no note', await post('feedback', '{}'), 422],
      ['oversized note', await post('feedback', JSON.stringify({ note: 'x'.repeat(10_001) })), 422],
      // The feedback cap is a screenshot's (2 MB as base64) plus the ticket's fields (#28).
      [
        'body over the cap',
        await post('feedback', JSON.stringify({ note: 'x'.repeat(SCREENSHOT_BODY_LIMIT + 1) })),
        413,
      ],
      [
        'visitor body over its cap',
        await post('visitors', JSON.stringify({ pad: 'x'.repeat(70_000) })),
        413,
      ],
      [
        'unknown key',
        await post('feedback', '{"note":"hi"}', { 'x-service-tenant': 'pk_nope' }),
        404,
      ],
      ['no key', await post('visitors', '{}', { 'x-service-tenant': '' }), 404],
      [
        'forged visitor',
        await post('feedback', '{"note":"hi"}', { 'x-service-visitor': 'vt_forged' }),
        401,
      ],
      ['unknown path', await post('nothing', '{}'), 404],
    ];
    for (const [what, res, status] of cases) {
      expect({ what, status: res.status }).toEqual({ what, status });
      expect({ what, cors: res.headers.get('access-control-allow-origin') }).toEqual({
        what,
        cors: '*',
      });
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.message.length).toBeGreaterThan(10);
    }
    const preflight = await fetch(`${ferry.url}/widget/v1/feedback`, {
      method: 'OPTIONS',
      headers: {
        origin: hostUrl,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-service-tenant,x-service-visitor',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/X-Service-Visitor/);

    // Rate limits: ten tickets a minute per visitor, then 429 with Retry-After (and CORS).
    const visitor = (await (await post('visitors', '{}')).json()) as { visitor: { token: string } };
    const answers: Response[] = [];
    for (let i = 0; i < 11; i++) {
      answers.push(
        await post('feedback', JSON.stringify({ note: `report ${i}` }), {
          'x-service-visitor': visitor.visitor.token,
        }),
      );
    }
    expect(answers.slice(0, 10).map((r) => r.status)).toEqual(Array(10).fill(201));
    const limited = answers[10]!;
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('access-control-allow-origin')).toBe('*');

    const bundle = await fetch(`${ferry.url}/widget/v1.js`);
    expect(bundle.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    // Compressed (#28), and still revalidated by its (now weak) ETag.
    expect(bundle.headers.get('content-encoding')).toBe('gzip');
    const etag = bundle.headers.get('etag')!;
    expect(
      (await fetch(`${ferry.url}/widget/v1.js`, { headers: { 'if-none-match': etag } })).status,
    ).toBe(304);
  });
});
