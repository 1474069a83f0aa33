export {
  ConfigError,
  baseConfigSchema,
  baseConfigShape,
  booleanFromEnv,
  configWarnings,
  defineConfig,
  loadAll,
  loadConfig,
  serviceConfig,
} from './config.js';
export type { BaseEnv, Config, EnvLoader, LogFormat } from './config.js';
export { createRedisConnection, redisMasterUrl, redisReady } from './redis.js';
export type { RedisConnectionOptions, RedisRole } from './redis.js';
export { REDIS_URL_FORMS, describeRedisTarget, parseRedisUrl } from './redis-url.js';
export type { RedisTarget, RedisUrlResult, SentinelAddress } from './redis-url.js';
export { AppError, ERROR_STATUS, fieldErrors, notFound } from './errors.js';
export type { ErrorBody, ErrorCode } from './errors.js';
export { ID_PREFIXES, firstIdAt, idTime, isId, newId } from './ids.js';
export type { IdKind } from './ids.js';
export { createLogger, prettyByDefault, prettyLines, warningsOnly } from './logger.js';
export type { Logger } from './logger.js';
export {
  SecretBox,
  generateSecret,
  hashPassword,
  hashSecret,
  safeEqual,
  verifyPassword,
  visiblePrefix,
} from './secrets.js';
export {
  ALWAYS_FILTERED_KEYS,
  DEFAULT_SCRUB_RULES,
  DEFAULT_SENSITIVE_KEYS,
  FILTERED,
  IP_KEYS,
  isSensitiveKey,
  maskQuery,
  scrubRules,
  scrubText,
  scrubValue,
} from './scrub.js';
export type { ScrubRules } from './scrub.js';
export { storable, storableDeep, truncate } from './text.js';
export { createGroupCommit } from './group-commit.js';
export type { GroupCommit, GroupCommitOptions, GroupCommitStats } from './group-commit.js';
export { inOrder } from './in-order.js';
export {
  RefusedTargetError,
  checkTargetUrl,
  embeddedIPv4,
  guardedLookup,
  loadSsrfSettings,
  refusedAddressReason,
  refusedLiteralHost,
} from './ssrf.js';
export type { SsrfSettings, TargetCheck } from './ssrf.js';
