export {
  AGENT_NAME_MAX,
  HEARTBEAT_WINDOW_MS,
  STREAM_WINDOW_MS,
  agentNameSchema,
  agentOnline,
  agentSettingsSchema,
  agentStatus,
  findAgent,
  installIdSchema,
  listAgents,
  recentWork,
  registerAgent,
  toAgentName,
  updateAgentSettings,
  updateAgentWake,
  workState,
} from './agents.js';
export type { AgentStatus, RegisterInput, WorkState } from './agents.js';
export {
  DEFAULT_SHIP_POLICY,
  decideRoute,
  escapesRepository,
  matchesGlob,
  normalizeRepoPath,
  saveShipPolicy,
  shipPolicy,
  shipPolicySchema,
} from './ship-policy.js';
export type { RouteDecision, ShipPolicyRules } from './ship-policy.js';
