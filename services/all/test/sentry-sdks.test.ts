import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import express from 'express';
import * as Sentry from '@sentry/node';
import type { Workspace } from '@ferry/db';
import {
  createMember,
  createWorkspace,
  FormClient,
  reportFromRaven,
  reportFromSentryPython,
  startApp,
  waitUntil,
  type RunningApp,
} from '@ferry/testing';
import { startFerry, type FerryHarness } from './support/ferry.js';

/**
 * Sentry's own SDKs pointed at `pnpm start` with the DSN a user copies from the Error reporting
 * page: @sentry/node from npm (captureException, captureMessage, an Express error), sentry-python
 * 1.9 and the Ruby raven client 3.1 from Debian's packages (.ci/run installs them), each as a
 * user's app would run it. What they send must be on the Errors page a member opens: the list with
 * class, message and source, each group's page with backtrace, environment and release.
 */

class PaymentDeclined extends Error {
  override name = 'PaymentDeclined';
}

function decline(card: string): Error {
  return new PaymentDeclined(`card ${card} declined`);
}

/** Text of a page without its tags, entities read, runs of whitespace as one space. */
function pageText(html: string): string {
  return html
    .replace(/<script[\s\S]*?<\/script>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replaceAll('&#39;', "'")
    .replaceAll('&quot;', '"')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&')
    .replace(/\s+/g, ' ');
}

describe('Sentry SDKs reporting to pnpm start: on the Errors page', () => {
  let ferry: FerryHarness;
  let workspace: Workspace;
  let staff: FormClient;
  let dsn: string;

  beforeAll(async () => {
    ferry = await startFerry();
    workspace = await createWorkspace(ferry.ctx.db, { name: 'Shop' });
    const owner = await createMember(ferry.ctx.db, workspace, { role: 'owner' });
    staff = new FormClient(ferry.url);
    await staff.signIn(owner.user.email, owner.user.password);
    // The DSN exactly as the Error reporting page shows it.
    const settings = await staff.get(`/w/${workspace.id}/${workspace.slug}/settings/errors`);
    expect(settings.status).toBe(200);
    const shown = /<code id="sentry-dsn">([^<]+)<\/code>/.exec(settings.text);
    expect(shown).not.toBeNull();
    dsn = shown![1]!.trim();
    expect(dsn).toBe(`http://${workspace.public_key}@${new URL(ferry.url).host}/1`);
  });

  afterAll(async () => {
    await Sentry.close(2_000);
    await ferry?.close();
  });

  it('@sentry/node, sentry-python and raven-ruby events: class, message, source, backtrace, environment, release', async () => {
    Sentry.init({
      dsn,
      release: 'shop@2.0.0',
      environment: 'node-prod',
      // No default integrations: they hook process-wide things (diagnostics channels, process
      // handlers) that would outlive this file in its Jest worker and reach other services' tests.
      // What is sent is the same event; sentry-node.test.ts runs the SDK with its defaults.
      defaultIntegrations: false,
    });
    Sentry.captureException(decline('4242'));
    Sentry.captureException(decline('1111'));
    Sentry.captureMessage('Nightly export finished late');
    const app = express();
    app.get('/orders/:id', () => {
      throw new TypeError('order.total is undefined');
    });
    Sentry.setupExpressErrorHandler(app);
    app.use(((_error, _req, res, _next) => {
      res.status(500).end();
    }) as express.ErrorRequestHandler);
    const shop: RunningApp = await startApp(app);
    try {
      expect((await fetch(`${shop.url}/orders/7`)).status).toBe(500);
    } finally {
      await shop.close();
    }
    expect(await Sentry.flush(5_000)).toBe(true);
    await reportFromSentryPython(dsn, { release: 'billing@3.1.0', environment: 'py-prod' });
    await reportFromRaven(dsn, {
      release: 'ledger@7.0.1',
      environment: 'rb-prod',
      method: 'close_books',
      message: 'month %s is already closed',
      arg: '2026-11',
    });

    const occurrences = async () =>
      Number(
        (
          await ferry.ctx.db
            .selectFrom('error_occurrences')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('workspace_id', '=', workspace.id)
            .executeTakeFirstOrThrow()
        ).n,
      );
    await waitUntil(async () => (await occurrences()) >= 6, 'the six events to be written');

    const base = `/w/${workspace.id}/${workspace.slug}/errors`;
    const list = await staff.get(base);
    expect(list.status).toBe(200);
    // One table row per group: its class, latest message and source badge, in that row.
    const rows = [...list.text.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) => pageText(row[1]!));
    const rowOf = (errorClass: string) => rows.filter((row) => row.includes(`${errorClass} `));
    // Five groups: the two declines share class and top frame (SPEC.md's fingerprint).
    for (const [errorClass, message, source] of [
      ['PaymentDeclined', /card (4242|1111) declined/, 'node'],
      ['UnknownError', /Nightly export finished late/, 'node'],
      ['TypeError', /order\.total is undefined/, 'node'],
      ['ValueError', /card 4242 expired/, 'python'],
      ['ArgumentError', /month 2026-11 is already closed/, 'ruby'],
    ] as const) {
      const found = rowOf(errorClass);
      expect(found).toHaveLength(1);
      expect(found[0]).toMatch(message);
      expect(found[0]).toContain(` ${source} `);
    }
    const groups = await ferry.ctx.db
      .selectFrom('error_groups')
      .select(['id', 'error_class', 'occurrence_count'])
      .where('workspace_id', '=', workspace.id)
      .execute();
    expect(groups).toHaveLength(5);
    const byClass = new Map(groups.map((group) => [group.error_class, group]));
    expect(byClass.get('PaymentDeclined')!.occurrence_count).toBe('2');

    // Each group's page: innermost frame first in `file:line:in function` form, environment and
    // release as the SDK was given them.
    for (const [errorClass, frame, environment, release] of [
      ['PaymentDeclined', /sentry-sdks\.test\.ts:\d+:\d+:in decline/, 'node-prod', 'shop@2.0.0'],
      ['TypeError', /sentry-sdks\.test\.ts:\d+:\d+:in /, 'node-prod', 'shop@2.0.0'],
      ['ValueError', /:\d+:in charge/, 'py-prod', 'billing@3.1.0'],
      ['ArgumentError', /:\d+:in close_books/, 'rb-prod', 'ledger@7.0.1'],
    ] as const) {
      const page = await staff.get(`${base}/${byClass.get(errorClass)!.id}`);
      expect(page.status).toBe(200);
      const detail = pageText(page.text);
      expect(detail).toContain(errorClass);
      expect(detail).toMatch(frame);
      expect(detail).toContain(environment);
      expect(detail).toContain(release);
    }
  });
});
