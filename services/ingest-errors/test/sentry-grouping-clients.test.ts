import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace, logFromSentryPython, messagesFromSentryRuby } from '@ferry/testing';
import { latestOccurrences, listErrorGroups } from '@ferry/workspace';
import { startIngestService, type IngestService } from './support/sdk-service.js';

/**
 * Grouping by the frame and the template that say where the app went wrong (issue 41, in-app
 * grouping), with Debian's real clients: sentry-ruby 5.3 (`ruby-sentry-ruby`, envelopes) and
 * sentry-python 1.9's logging integration (`python3-sentry-sdk`), each as its own process.
 */
const APP = { release: 'shop@2.0.0', environment: 'production' };

describe('Sentry events group by the app’s own frame and the log line’s template', () => {
  let service: IngestService;

  beforeAll(async () => {
    service = await startIngestService();
  });

  afterAll(async () => {
    await service.close();
  });

  const dsnFor = (publicKey: string): string =>
    `http://${publicKey}@${new URL(service.url).host}/1`;

  it('sentry-ruby: capture_message from two methods makes two groups, not one in sentry/hub.rb', async () => {
    const ws = await createWorkspace(service.ctx.db);
    await messagesFromSentryRuby(dsnFor(ws.public_key), {
      ...APP,
      methods: ['checkout', 'refund'],
      message: 'payment declined',
    });
    await service.waitForOccurrences(ws.id, 2);
    const page = await listErrorGroups(service.ctx.db, ws.id);
    expect(page.groups).toHaveLength(2);
    const tops = await Promise.all(
      page.groups.map(async (group) => (await latestOccurrences(service.ctx.db, group))[0]!),
    );
    for (const occurrence of tops) {
      expect(occurrence).toMatchObject({ message: 'payment declined', source: 'ruby' });
      // The stored backtrace is still SPEC.md's, innermost first: the SDK's own frames lead it.
      expect(occurrence.backtrace[0]).toMatch(/sentry\/hub\.rb:\d+:in capture_message$/);
    }
    const callers = tops.map((o) =>
      o.backtrace.find((line) => /:in (checkout|refund)$/.test(line)),
    );
    expect(callers.map((line) => line?.replace(/.*:in /, '')).sort()).toEqual([
      'checkout',
      'refund',
    ]);
  });

  it('sentry-python logging: params are applied, and one template is one group', async () => {
    const ws = await createWorkspace(service.ctx.db);
    await logFromSentryPython(dsnFor(ws.public_key), {
      ...APP,
      template: 'order %s failed',
      params: ['42', '43'],
    });
    await service.waitForOccurrences(ws.id, 2);
    const page = await listErrorGroups(service.ctx.db, ws.id);
    expect(page.groups).toHaveLength(1);
    const occurrences = await latestOccurrences(service.ctx.db, page.groups[0]!);
    expect(occurrences.map((o) => o.message).sort()).toEqual([
      'order 42 failed',
      'order 43 failed',
    ]);
    expect(occurrences[0]).toMatchObject({ source: 'python', environment: 'production' });
  });
});
