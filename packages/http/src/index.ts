export { createHttpApp, finishApp, serverClassesFor } from './app.js';
export type { HttpAppOptions } from './app.js';
export {
  DEFAULT_BODY_TIMEOUTS,
  bodyDeadline,
  bodyTimedOut,
  bodyTimeoutsOf,
  serverTimeouts,
  useBodyTimeout,
} from './body-deadline.js';
export type { BodyTimeout, BodyTimeouts } from './body-deadline.js';
export { errorHandler, notFoundHandler, toAppError } from './errors.js';
export type { ErrorHandlerOptions } from './errors.js';
export { healthRouter, isLoopbackAddress, metricsRouter } from './health.js';
export { createMetrics, registerOpsGauges, routeLabel } from './metrics.js';
export type { Metrics, OpsSnapshot } from './metrics.js';
export { requestId } from './request-id.js';
export { SLOW_REQUEST_MS, markStaticAsset, staticAssetRoutes } from './request-log.js';
export { parseInput, requireJsonBody, storableBody } from './validation.js';
export {
  KEEP_ALIVE_TIMEOUT_MS,
  closeServer,
  configOrExit,
  exitOnConfigError,
  listen,
  onShutdown,
  openRuntime,
  shutdownOnce,
} from './runtime.js';
export type { Runtime, RuntimeOptions } from './runtime.js';
export { requireSessionDatabase } from './session-database.js';
export { redactPath, registerSecretRoute } from './redact.js';
export { RATE_WINDOW_MS, groupedRateLimit, hitRateLimit } from './rate-limit.js';
export type { GroupedRateLimit } from './rate-limit.js';
export { EXCERPT_BYTES, postOutbound } from './outbound.js';
export type { PostOptions, SendResult } from './outbound.js';
export {
  MUTATING,
  access,
  authorizationProblem,
  declaredRoutes,
  mount,
  mountedRoutes,
  routeTable,
  routesOf,
  shareRoutes,
} from './route-table.js';
export type {
  Access,
  DeclaredRoute,
  HandlerFor,
  Method,
  MountedTable,
  PreparedRoute,
  RouteEntry,
  RouteHandler,
  RouteOptions,
  RouteTable,
} from './route-table.js';
export {
  CONFORMANCE_ENV,
  conformResponses,
  errorBodySchema,
  inputOf,
  validateInput,
} from './route-doc.js';
export type { RouteDoc, RouteResponseDoc, RouteSecurity, ValidatedInput } from './route-doc.js';
export { jsonSchemaOf, openApiDocument, openApiDrift, openApiPath } from './openapi.js';
export type { OpenApiInfo, WebhookDoc } from './openapi.js';
export { publicKeyApi, rateLimitedError } from './public-key.js';
export type { PublicKeyApi, PublicKeyApiOptions } from './public-key.js';
export { runServices } from './service.js';
export type {
  Duty,
  RunServicesOptions,
  RunningServices,
  ServiceContext,
  ServiceManifest,
} from './service.js';
export { createServiceApp } from './service-app.js';
export type { ServiceAppOptions, ServiceMount } from './service-app.js';
