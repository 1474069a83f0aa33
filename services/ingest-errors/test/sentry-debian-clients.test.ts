import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createWorkspace } from '@ferry/testing';
import { latestOccurrences, listErrorGroups } from '@ferry/workspace';
import { startIngestService, type IngestService } from './support/sdk-service.js';

/**
 * Two real clients of Sentry's legacy store endpoint, from Debian's packages (.ci/run installs
 * them): sentry-python 1.9 (`python3-sentry-sdk`: JSON, gzip, X-Sentry-Auth) and the Ruby raven
 * client 3.1 (`ruby-sentry-raven`: base64 of zlib-deflated JSON as application/octet-stream).
 * Each runs as its own process, as in a user's app, raising from a function of its own.
 */
const run = promisify(execFile);

/** Debian's interpreter, not one on PATH (pyenv): the package lives in its dist-packages. */
const PYTHON = '/usr/bin/python3';
const RUBY = '/usr/bin/ruby';

const PYTHON_APP = `
import sys
import sentry_sdk

sentry_sdk.init(dsn=sys.argv[1], release="billing@3.1.0", environment="production")

def charge(card):
    raise ValueError("card %s expired" % card)

try:
    charge("4242")
except Exception as error:
    sentry_sdk.capture_exception(error)
sentry_sdk.flush(10)
`;

const RUBY_APP = `
require 'logger'
require 'raven'

Raven.configure do |config|
  config.dsn = ARGV[0]
  config.release = 'billing@3.1.0'
  config.current_environment = 'production'
  config.logger = Logger.new(nil)
end

def charge(card)
  raise ArgumentError, "card #{card} expired"
end

begin
  charge('4242')
rescue => error
  Raven.capture_exception(error) or abort('raven did not send the event')
end
`;

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
    await run(PYTHON, ['-c', PYTHON_APP, dsnFor(ws.public_key)], { timeout: 20_000 });
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
    await run(RUBY, ['-e', RUBY_APP, dsnFor(ws.public_key)], { timeout: 20_000 });
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
