export { PROGRESS_MAX, agentEventSchema, recordAgentEvent } from './agent-events.js';
export type { AgentEvent, EventAnswer } from './agent-events.js';
export {
  AGENT_GATEWAY_PATH,
  agentGatewayRouter,
  agentStreamHub,
  createAgentGatewayApp,
} from './app.js';
export { loadAgentGatewayConfig, loadAgentGatewaySettings } from './config.js';
export type { AgentGatewayConfig, AgentGatewaySettings } from './config.js';
export type { AgentGatewayDeps, AgentGatewayHttpDeps } from './deps.js';
export { AGENT_GATEWAY_QUEUES, agentGatewayDeps, agentGatewayJobs } from './jobs/index.js';
export type { AgentGatewayJobOptions } from './jobs/index.js';
export {
  TOKEN_REVOKED_CHANNEL,
  createStreamHub,
  nudge,
  nudgeChannel,
  sseFrame,
  workEvent,
} from './streams.js';
export type { StreamHub, StreamHubOptions, WorkEvent } from './streams.js';
export {
  ackWork,
  countUnacked,
  findWork,
  logWork,
  markDelivered,
  unackedWork,
} from './work-log.js';
export type { NewWork } from './work-log.js';
export { agentGatewayManifest } from './manifest.js';
export { markStreamClosed, markStreamOpen } from './connection-events.js';
