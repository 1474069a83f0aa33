export { IDEMPOTENCY_TTL } from './idempotency.js';
export {
  IDEMPOTENCY_KEY_MAX,
  SENDER_MAX,
  acceptPost,
  findLiveKey,
  liveKeyHashes,
  parseIncomingPost,
  pruneIdempotencyRecords,
  resolvePost,
  roomForPost,
  storePost,
  unknownKey,
  webhookMessage,
} from './accept.js';
export type { Accepted, IncomingPost, LiveKey, ResolvedPost } from './accept.js';
export { createWebhooksInApp, webhooksInRouter } from './app.js';
export { GITHUB_EVENTS, renderGithubEvent } from './decode/github.js';
export type { GithubMessage } from './decode/github.js';
export { GITHUB_PATH, verifyGithubSignature } from './github-route.js';
export { SLACK_PATHS, slackRefusal } from './slack-route.js';
export type { SlackRefusal } from './slack-route.js';
export { loadWebhooksInConfig, loadWebhooksInSettings, webhooksInConfigShape } from './config.js';
export type { WebhooksInConfig, WebhooksInSettings } from './config.js';
export type { WebhooksInDeps } from './deps.js';
export { KEY_CHANNEL, createLiveKeyCache } from './key-cache.js';
export type { LiveKeyCache } from './key-cache.js';
export { createPostWriter } from './post-writer.js';
export type { PostWriter, PostWriterOptions, PostWriterStats } from './post-writer.js';
export { webhooksInManifest } from './manifest.js';
