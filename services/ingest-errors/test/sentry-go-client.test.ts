import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSentryGoApp, createWorkspace, type SentryGoApp } from '@ferry/testing';
import { latestOccurrences, listErrorGroups, type OccurrenceDetail } from '@ferry/workspace';
import { fingerprint } from '../src/fingerprint.js';
import { UNKNOWN_ERROR_CLASS } from '../src/report.js';
import { startIngestService, type IngestService, type SeenRequest } from './support/sdk-service.js';

/**
 * Debian's sentry-go (`golang-github-getsentry-sentry-go-dev`, 0.11) as a Go program of its own
 * (packages/testing sentry-go-client.ts). A message event with AttachStacktrace carries its stack
 * in `threads`, a bare list; if Ferry did not read it, the event would have no frames and group
 * by its message alone.
 */
const APP = { release: 'payments@1.4.0', environment: 'production' };

/** `file:line:in function` -> [file, function]: where a backtrace line says it is. */
function where(line: string): [string, string] | undefined {
  const match = /^(.*):\d+:in (.+)$/.exec(line);
  return match ? [match[1]!, match[2]!] : undefined;
}

describe('sentry-go 0.11 (Debian): message events with AttachStacktrace', () => {
  let service: IngestService;
  // Built once for the file: compiling is the slow part, running it takes a fraction of a second.
  let sentryGo: SentryGoApp;

  beforeAll(async () => {
    sentryGo = await buildSentryGoApp();
    service = await startIngestService();
  });

  afterAll(async () => {
    sentryGo.remove();
    await service.close();
  });

  const dsnFor = (publicKey: string): string =>
    `http://${publicKey}@${new URL(service.url).host}/1`;

  /** The requests to the project's endpoints since `since` (sentry-go 0.11 uses store's). */
  const sentrySent = (since: number): SeenRequest[] =>
    service.requests
      .slice(since)
      .filter((request) => /^\/api\/1\/(store|envelope)\//.test(request.url));

  it('a message keeps its frames: the program’s own function in its main.go', async () => {
    const ws = await createWorkspace(service.ctx.db);
    const since = service.requests.length;
    await sentryGo.sendMessages(dsnFor(ws.public_key), {
      ...APP,
      message: 'card 4242 declined',
      callers: ['chargeCard'],
    });
    // The program's Flush returned true, so the answers are in: a refused event fails here.
    expect(sentrySent(since)).toEqual([expect.objectContaining({ status: 200 })]);
    await service.waitForOccurrences(ws.id, 1);
    const page = await listErrorGroups(service.ctx.db, ws.id);
    expect(page.groups).toEqual([
      // A message event raises nothing: SPEC.md's class for a report without one.
      expect.objectContaining({
        error_class: UNKNOWN_ERROR_CLASS,
        latest_message: 'card 4242 declined',
        source: 'api',
      }),
    ]);
    const [occurrence] = await latestOccurrences(service.ctx.db, page.groups[0]!);
    expect(occurrence).toMatchObject({
      message: 'card 4242 declined',
      environment: 'production',
      app_version: 'payments@1.4.0',
    });
    // The structured detail (issue 41) keeps the frames with their code, and the SDK.
    const detail = occurrence!.detail as OccurrenceDetail;
    expect(detail.sdk).toMatchObject({ name: 'sentry.go' });
    expect(detail.frames![0]).toMatchObject({ function: 'chargeCard', in_app: true });
    expect(detail.frames![0]!.context_line).toContain('sentry.CaptureMessage');
    // Innermost first: sentry-go drops its own frames and the runtime's before sending.
    expect(occurrence!.backtrace.map(where)).toEqual([
      [sentryGo.source, 'chargeCard'],
      [sentryGo.source, 'main'],
    ]);
  });

  it('CaptureMessage from two functions makes two groups, each keyed by its own frame', async () => {
    const ws = await createWorkspace(service.ctx.db);
    const since = service.requests.length;
    await sentryGo.sendMessages(dsnFor(ws.public_key), {
      ...APP,
      message: 'payment declined',
      callers: ['chargeCard', 'refundCard'],
    });
    expect(sentrySent(since)).toEqual([
      expect.objectContaining({ status: 200 }),
      expect.objectContaining({ status: 200 }),
    ]);
    await service.waitForOccurrences(ws.id, 2);
    const page = await listErrorGroups(service.ctx.db, ws.id);
    // One message, so without frames both would be one group keyed by it.
    expect(page.groups).toHaveLength(2);
    const keyedBy = await Promise.all(
      page.groups.map(async (group) => {
        const [occurrence] = await latestOccurrences(service.ctx.db, group);
        expect(occurrence!.message).toBe('payment declined');
        // The group's key is SPEC.md's from the backtrace's first line: the caller's own frame.
        expect(group.fingerprint).toBe(fingerprint(occurrence!));
        return where(occurrence!.backtrace[0]!);
      }),
    );
    expect(keyedBy.sort()).toEqual([
      [sentryGo.source, 'chargeCard'],
      [sentryGo.source, 'refundCard'],
    ]);
  });
});
