import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/**
 * Two real clients of Sentry's legacy store endpoint from Debian's packages (.ci/run installs
 * them): sentry-python 1.9 (`python3-sentry-sdk`: JSON, gzip, X-Sentry-Auth) and the Ruby raven
 * client 3.1 (`ruby-sentry-raven`: base64 of zlib-deflated JSON as application/octet-stream). Each
 * runs as its own process, as in a user's app, raising from a function of its own. Debian's
 * interpreters, not the ones on PATH (pyenv): the packages live in their dist-packages.
 */
const run = promisify(execFile);

export interface SentryClientApp {
  release: string;
  environment: string;
}

/** sentry-python reports `ValueError: card 4242 expired`, raised in `charge`. */
export async function reportFromSentryPython(dsn: string, app: SentryClientApp): Promise<void> {
  const script = `
import sys
import sentry_sdk

sentry_sdk.init(dsn=sys.argv[1], release=sys.argv[2], environment=sys.argv[3])

def charge(card):
    raise ValueError("card %s expired" % card)

try:
    charge("4242")
except Exception as error:
    sentry_sdk.capture_exception(error)
sentry_sdk.flush(10)
`;
  await run('/usr/bin/python3', ['-c', script, dsn, app.release, app.environment], {
    timeout: 20_000,
  });
}

/**
 * raven-ruby reports `ArgumentError` with `message`, raised in `method` (a one-argument method
 * whose argument is interpolated into the message as `#{arg}` with `arg`).
 */
export async function reportFromRaven(
  dsn: string,
  app: SentryClientApp & { method: string; message: string; arg: string },
): Promise<void> {
  const script = `
require 'logger'
require 'raven'

dsn, release, environment, arg = ARGV
Raven.configure do |config|
  config.dsn = dsn
  config.release = release
  config.current_environment = environment
  config.logger = Logger.new(nil)
end

def ${app.method}(value)
  raise ArgumentError, ${JSON.stringify(app.message)}.sub('%s', value)
end

begin
  ${app.method}(arg)
rescue => error
  Raven.capture_exception(error) or abort('raven did not send the event')
end
`;
  await run('/usr/bin/ruby', ['-e', script, dsn, app.release, app.environment, app.arg], {
    timeout: 20_000,
  });
}

/**
 * sentry-python's logging integration: `logging.error(template, param)` once per param, from one
 * function (`pay`), so every event has the same template and frames but a different message.
 */
export async function logFromSentryPython(
  dsn: string,
  app: SentryClientApp & { template: string; params: readonly string[] },
): Promise<void> {
  const script = `
import json
import logging
import sys
import sentry_sdk

sentry_sdk.init(dsn=sys.argv[1], release=sys.argv[2], environment=sys.argv[3])
log = logging.getLogger("orders")

def pay(param):
    log.error(sys.argv[4], param)

for param in json.loads(sys.argv[5]):
    pay(param)
sentry_sdk.flush(10)
`;
  await run(
    '/usr/bin/python3',
    ['-c', script, dsn, app.release, app.environment, app.template, JSON.stringify(app.params)],
    { timeout: 20_000 },
  );
}

/**
 * sentry-ruby 5 (`ruby-sentry-ruby`: envelopes, gzip) sends `Sentry.capture_message(message)`
 * once from each of `methods`, in that order. Its message events carry the caller's stack as a
 * thread, innermost frames the SDK's own (sentry-ruby.rb, sentry/hub.rb), every frame `in_app:
 * false` (project_root is the working directory, not the script's). Sent synchronously.
 */
export async function messagesFromSentryRuby(
  dsn: string,
  app: SentryClientApp & { methods: readonly string[]; message: string },
): Promise<void> {
  const methods = app.methods
    .map((name) => `def ${name}(message)\n  Sentry.capture_message(message)\nend`)
    .join('\n');
  const calls = app.methods.map((name) => `${name}(message)`).join('\n');
  const script = `
require 'sentry-ruby'

dsn, release, environment, message = ARGV
Sentry.init do |config|
  config.dsn = dsn
  config.release = release
  config.environment = environment
  config.background_worker_threads = 0
  config.logger = Logger.new(nil)
end

${methods}

${calls}
`;
  await run('/usr/bin/ruby', ['-e', script, dsn, app.release, app.environment, app.message], {
    timeout: 20_000,
    cwd: '/',
  });
}
