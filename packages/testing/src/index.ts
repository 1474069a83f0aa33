// The main entry: what most test files need. Browsers ('@ferry/testing/browser') and the fake
// GitHub ('@ferry/testing/fake-github') have entries of their own, loaded only by the files
// that use them (playwright-core, ajv and GraphQL cost CPU in every test worker that loads them).
export { startApp } from './app.js';
export type { RunningApp } from './app.js';
export { createTestContext } from './context.js';
export type { TestContext } from './context.js';
export {
  DEFAULT_PASSWORD,
  createApiToken,
  createErrorGroup,
  createErrorOccurrence,
  createFeedback,
  createMember,
  createMessage,
  createOutboxEvent,
  createRoom,
  createUser,
  createVisitor,
  createWorkspace,
  joinRoom,
} from './factories.js';
export { Receiver } from './receiver.js';
export type { ReceivedRequest, ReceiverReply } from './receiver.js';
export { resolveStores } from './stores.js';
export type { StoreUrls } from './stores.js';
export {
  entryCommand,
  freePort,
  killAll,
  spawnScript,
  startService,
  waitFor,
  waitUntil,
} from './process.js';
export type { ChildExit, ScriptProcess, ServiceProcess, StartServiceOptions } from './process.js';
export { pgbouncerBinary, startPgBouncer } from './pgbouncer.js';
export type { PgBouncer } from './pgbouncer.js';
export { holdRequest, runLoad } from './drain.js';
export type { HeldAnswer, HeldRequest, Load } from './drain.js';
export { FormClient } from './form-client.js';
export { sessionCookie } from './session-cookie.js';
export { readSseFrames } from './sse.js';
export type { SseEvent } from './sse.js';
export { createDatabaseBefore } from './migrations.js';
export type { DatabaseBefore } from './migrations.js';
export { jpegHeader, solidPng, webpHeader } from './images.js';
export {
  logFromSentryPython,
  messagesFromSentryRuby,
  reportFromRaven,
  reportFromSentryPython,
} from './sentry-clients.js';
export type { SentryClientApp } from './sentry-clients.js';
export { buildSentryGoApp } from './sentry-go-client.js';
export type { SentryGoApp, SentryGoCaller } from './sentry-go-client.js';
export { runSentryCli } from './sentry-cli.js';
export type { SentryCliResult, SentryCliTarget } from './sentry-cli.js';
export {
  buildMinifiedApp,
  CHECKOUT_TS,
  MINIFIED_APP_URL,
  MONEY_TS,
  THROW_LINE,
  minifiedAppStack,
  storeMinifiedApp,
} from './minified-app.js';
export type { MinifiedApp } from './minified-app.js';
export { SCRUB_SECRETS, secretContext, secretSentryEvent } from './scrub-fixtures.js';
