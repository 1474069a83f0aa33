import http from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { createFerryClient } from '@ferry/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { SentryCli } from '@sentry/cli';
import type { Workspace } from '@ferry/db';
import {
  THROW_LINE,
  buildMinifiedApp,
  createApiToken,
  createMember,
  createWorkspace,
  runSentryCli,
  waitUntil,
  type MinifiedApp,
  type SentryCliTarget,
} from '@ferry/testing';
import { launchBrowser, signInWithForm, type TestBrowser } from '@ferry/testing/browser';
import type { OccurrenceDetail } from '@ferry/workspace';
import { startFerry, type FerryHarness } from './support/ferry.js';
import { sentryBrowserScript } from './support/sentry-browser-sdk.js';

/**
 * Source maps end to end (issue 41), with the real clients: esbuild minifies a two-file app,
 * the real sentry-cli uploads its maps to `pnpm start` (debug IDs injected, or --release with
 * --url-prefix), the real @sentry/browser in Chromium reports an error thrown from the minified
 * bundle, and Ferry stores the frames mapped: original file, line, function and code. A second
 * build of the same source, minified differently and with other debug IDs, groups with the first.
 */
describe('source maps: sentry-cli uploads, @sentry/browser reports, Ferry maps', () => {
  let ferry: FerryHarness;
  let chrome: TestBrowser;
  let sdkBundle: string;
  const servers: http.Server[] = [];

  beforeAll(async () => {
    sdkBundle = await sentryBrowserScript();
    [ferry, chrome] = await Promise.all([startFerry(), launchBrowser()]);
  });

  afterAll(async () => {
    for (const server of servers) server.closeAllConnections();
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    await chrome?.close();
    await ferry?.close();
  });

  async function cliFor(workspace: Workspace): Promise<SentryCliTarget> {
    const token = await createApiToken(ferry.ctx.db, workspace, { scopes: ['releases:write'] });
    return { binary: SentryCli.getPath(), url: ferry.url, token: token.raw, org: workspace.slug };
  }

  async function cli(target: SentryCliTarget, args: string[], app: MinifiedApp): Promise<void> {
    const result = await runSentryCli(target, args, app.root);
    expect(result.code, `sentry-cli ${args.join(' ')}: ${result.stderr}`).toBe(0);
  }

  /** The customer's site: the SDK, then the minified app at /assets/app.min.js. */
  async function serveShop(workspace: Workspace, app: MinifiedApp, release: string) {
    const script = await readFile(path.join(app.dist, 'app.min.js'), 'utf8');
    const dsn = `http://${workspace.public_key}@${new URL(ferry.url).host}/1`;
    const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>
<script>${sdkBundle}</script>
<script>Sentry.init({ dsn: ${JSON.stringify(dsn)}, release: ${JSON.stringify(release)} });</script>
<script src="/assets/app.min.js"></script>
<script>
  window.pay = function () {
    try { window.checkout('abc'); } catch (error) { Sentry.captureException(error); }
  };
</script></head><body>Shop</body></html>`;
    const server = http.createServer((req, res) => {
      const isScript = req.url === '/assets/app.min.js';
      res.writeHead(200, {
        'content-type': isScript ? 'text/javascript' : 'text/html; charset=utf-8',
      });
      res.end(isScript ? script : page);
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async function payOn(url: string): Promise<void> {
    const context = await chrome.newContext();
    const page = await context.newPage();
    await page.goto(url);
    // The SDK sends its envelope after pay() returns: closing the page first could cancel that
    // request (a loaded run lost it), so the page stays open until Ferry has answered it. The
    // event's envelope, not any: the SDK's session envelope from page load can still be in
    // flight, and answering it is no sign the event was sent (a full run closed the page on it
    // and the event never came).
    const sent = page.waitForResponse(
      (response) =>
        response.url().includes('/envelope/') &&
        response.request().method() === 'POST' &&
        (response.request().postData() ?? '').includes('"type":"event"'),
    );
    await page.evaluate(() => (window as unknown as { pay(): void }).pay());
    expect((await sent).status()).toBe(200);
    await context.close();
  }

  const occurrences = (workspaceId: string) =>
    ferry.ctx.db
      .selectFrom('error_occurrences')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('received_at')
      .execute();

  async function waitForOccurrences(workspaceId: string, count: number) {
    try {
      // The envelope was answered (only once queued): the writer stores it within a second or
      // two; a minute covers a loaded host. A full run once saw none stored in 30 s.
      await waitUntil(
        async () => (await occurrences(workspaceId)).length >= count,
        `${count} browser event(s) to be stored`,
        60_000,
      );
    } catch (error) {
      throw new Error(`${(error as Error).message}; error-ingest: ${await ingestQueueState()}`);
    }
    return occurrences(workspaceId);
  }

  /** What the writer's queue holds, for a wait that gave up: counts, and why jobs failed. */
  async function ingestQueueState(): Promise<string> {
    const queue = new Queue('error-ingest', {
      connection: ferry.ctx.redis.duplicate(),
      prefix: ferry.ctx.config.REDIS_PREFIX,
    });
    try {
      const counts = await queue.getJobCounts('wait', 'active', 'delayed', 'failed', 'completed');
      const stuck = await queue.getJobs(['delayed', 'failed'], 0, 4);
      const why = stuck.map((job) => `${job.id} (${job.attemptsMade} tries): ${job.failedReason}`);
      return `${JSON.stringify(counts)} ${why.join(' | ')}`;
    } finally {
      await queue.close();
    }
  }

  function expectMapped(detail: OccurrenceDetail): void {
    const [top, caller] = detail.exceptions!.at(-1)!.frames;
    expect(top).toMatchObject({
      function: 'parsePrice',
      file: 'src/money.ts',
      line: THROW_LINE,
      in_app: true,
      context_line: "    throw new TypeError('price is not a number: ' + raw);",
      minified: { file: expect.stringMatching(/\/assets\/app\.min\.js$/) as string },
    });
    expect(top!.pre_context).toContain('  if (!Number.isFinite(value)) {');
    expect(caller).toMatchObject({ function: 'checkout', file: 'src/checkout.ts', line: 4 });
  }

  it('debug IDs: frames mapped at write time, and a second build groups with the first', async () => {
    const workspace = await createWorkspace(ferry.ctx.db);
    const target = await cliFor(workspace);
    const first = await buildMinifiedApp(0);
    const second = await buildMinifiedApp(7);
    for (const app of [first, second]) {
      await cli(target, ['sourcemaps', 'inject', 'dist'], app);
      await cli(target, ['sourcemaps', 'upload', 'dist'], app);
    }
    await payOn(await serveShop(workspace, first, 'shop@1'));
    const [one] = await waitForOccurrences(workspace.id, 1);
    expect(one!.error_class).toBe('TypeError');
    expect(one!.backtrace[0]).toMatch(
      new RegExp(`^src/money\\.ts:${THROW_LINE}:\\d+:in parsePrice$`),
    );
    expectMapped(one!.detail as OccurrenceDetail);

    await payOn(await serveShop(workspace, second, 'shop@2'));
    const [, two] = await waitForOccurrences(workspace.id, 2);
    const minified = (o: typeof one) =>
      (o!.detail as OccurrenceDetail).exceptions!.at(-1)!.frames[0]!.minified;
    // Different builds: other debug IDs, other minified positions; one group.
    const debugIds = (o: typeof one) => (o!.detail as OccurrenceDetail).debug_images;
    expect(debugIds(two)).not.toEqual(debugIds(one));
    expect(minified(two)).not.toEqual(minified(one));
    expect(two!.group_id).toBe(one!.group_id);
  });

  it('--release with --url-prefix: frames mapped by release and URL', async () => {
    const workspace = await createWorkspace(ferry.ctx.db);
    const target = await cliFor(workspace);
    const app = await buildMinifiedApp(3);
    const release = 'shop@3.0.0';
    await cli(target, ['releases', 'new', release], app);
    await cli(
      target,
      ['sourcemaps', 'upload', '--release', release, '--url-prefix', '~/assets', 'dist'],
      app,
    );
    await cli(target, ['releases', 'finalize', release], app);
    await payOn(await serveShop(workspace, app, release));
    const [stored] = await waitForOccurrences(workspace.id, 1);
    expectMapped(stored!.detail as OccurrenceDetail);

    // The group page, as a developer reads it: the app's frame with its code, at phone and desk.
    const owner = await createMember(ferry.ctx.db, workspace, { role: 'owner' });
    const context = await chrome.newContext();
    const page = await context.newPage();
    await signInWithForm(page, ferry.url, owner.user.email, owner.user.password);
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(
        `${ferry.url}/w/${workspace.id}/${workspace.slug}/errors/${stored!.group_id}`,
      );
      const trace = page.getByRole('region', { name: 'Stack trace' });
      await trace.waitFor();
      const text = await trace.innerText();
      expect(text).toContain(`src/money.ts:${THROW_LINE}`);
      expect(text).toContain('parsePrice');
      expect(text).toContain("throw new TypeError('price is not a number: ' + raw);");
      expect(text).toMatch(/Mapped from .*\/assets\/app\.min\.js:\d+:\d+/);
      // When and where: the charts and the tags' shares, the browser read from the User-Agent.
      const where = await page.getByRole('region', { name: 'When and where' }).innerText();
      expect(where).toContain('Last 24 hours');
      expect(where).toContain('Last 14 days');
      expect(where).toMatch(/browser\s+Chrome \d+\s+100%/);
      expect(where).toMatch(/release\s+shop@3\.0\.0\s+100%/);
      // Nothing sideways: the page fits the phone's width.
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
      await page.screenshot({ path: `/tmp/ferry-sourcemaps-group-${width}.png`, fullPage: true });
    }
    await context.close();

    // The Errors API answers the same mapped frames.
    const reader = await createApiToken(ferry.ctx.db, workspace, { scopes: ['tenant:read'] });
    const api = await createFerryClient(ferry.url, reader.raw).GET(
      '/api/v1/errors/occurrences/{id}',
      { params: { path: { id: stored!.id } } },
    );
    expect(api.response.status).toBe(200);
    expectMapped(api.data!.detail as OccurrenceDetail);

    // "Fix with agent": the ticket the local agent gets carries the mapped frame and its code.
    const writer = await createApiToken(ferry.ctx.db, workspace, { scopes: ['tenant:write'] });
    const filed = await createFerryClient(ferry.url, writer.raw).POST(
      '/api/v1/errors/{groupId}/feedback',
      { params: { path: { groupId: stored!.group_id } } },
    );
    expect(filed.response.status).toBe(201);
    const note = filed.data!.note;
    expect(note).toContain(`\`src/money.ts:${THROW_LINE}:`);
    expect(note).toMatch(/> +4 +throw new TypeError\('price is not a number: ' \+ raw\);/);
  });

  it('a map uploaded after the event: not regrouped, but shown mapped by the API and the page', async () => {
    const workspace = await createWorkspace(ferry.ctx.db);
    const target = await cliFor(workspace);
    const app = await buildMinifiedApp(5);
    await cli(target, ['sourcemaps', 'inject', 'dist'], app);
    await payOn(await serveShop(workspace, app, 'shop@5'));
    const [stored] = await waitForOccurrences(workspace.id, 1);
    // Written before any map existed: minified, and grouped by its minified frame.
    expect(stored!.backtrace[0]).toMatch(/\/assets\/app\.min\.js:\d+:\d+/);

    await cli(target, ['sourcemaps', 'upload', 'dist'], app);
    const reader = await createApiToken(ferry.ctx.db, workspace, { scopes: ['tenant:read'] });
    const api = await createFerryClient(ferry.url, reader.raw).GET(
      '/api/v1/errors/occurrences/{id}',
      { params: { path: { id: stored!.id } } },
    );
    expectMapped(api.data!.detail as OccurrenceDetail);
    const [again] = await occurrences(workspace.id);
    expect(again!.group_id).toBe(stored!.group_id);
    expect(again!.backtrace).toEqual(stored!.backtrace);
  });
});
