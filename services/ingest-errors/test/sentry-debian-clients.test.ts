import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace, reportFromRaven, reportFromSentryPython } from '@ferry/testing';
import { latestOccurrences, listErrorGroups } from '@ferry/workspace';
import { startIngestService, type IngestService } from './support/sdk-service.js';

/**
 * Two real clients of Sentry's legacy store endpoint, from Debian's packages (packages/testing
 * sentry-clients.ts): sentry-python 1.9 and the Ruby raven client 3.1, each as its own process.
 */
const APP = { release: 'billing@3.1.0', environment: 'production' };

describe('sentry-python 1.9 and raven-ruby 3.1 (Debian) against the store endpoint', () => {
  let service: IngestService;

  beforeAll(async () => {
    service = await startIngestService();
  });

  afterAll(async () => {
    await service.close();
  });

  const dsnFor = (publicKey: string): string =>
    `http://${publicKey}@${new URL(service.url).host}/1`;

  it('sentry-python: the exception is on the Errors page with source python', async () => {
    const ws = await createWorkspace(service.ctx.db);
    await reportFromSentryPython(dsnFor(ws.public_key), APP);
    await service.waitForOccurrences(ws.id, 1);
    const page = await listErrorGroups(service.ctx.db, ws.id);
    expect(page.groups).toEqual([
      expect.objectContaining({
        error_class: 'ValueError',
        latest_message: 'card 4242 expired',
        source: 'python',
      }),
    ]);
    const [occurrence] = await latestOccurrences(service.ctx.db, page.groups[0]!);
    expect(occurrence).toMatchObject({ environment: 'production', app_version: 'billing@3.1.0' });
    expect(occurrence!.backtrace[0]).toMatch(/:\d+:in charge$/);
    expect(occurrence!.backtrace.length).toBeGreaterThanOrEqual(2);
    const sent = service.requests.filter((request) => request.url.includes('/api/1/store/'));
    expect(sent).toEqual([expect.objectContaining({ encoding: 'gzip', status: 200 })]);
  });

  it('raven-ruby: the exception is on the Errors page with source ruby', async () => {
    const ws = await createWorkspace(service.ctx.db);
    await reportFromRaven(dsnFor(ws.public_key), {
      ...APP,
      method: 'charge',
      message: 'card %s expired',
      arg: '4242',
    });
    await service.waitForOccurrences(ws.id, 1);
    const page = await listErrorGroups(service.ctx.db, ws.id);
    expect(page.groups).toEqual([
      expect.objectContaining({
        error_class: 'ArgumentError',
        latest_message: 'card 4242 expired',
        source: 'ruby',
      }),
    ]);
    const [occurrence] = await latestOccurrences(service.ctx.db, page.groups[0]!);
    expect(occurrence).toMatchObject({ environment: 'production', app_version: 'billing@3.1.0' });
    expect(occurrence!.backtrace[0]).toMatch(/:\d+:in charge$/);
  });
});
