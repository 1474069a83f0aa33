export {
  AGENT_LIMITS,
  INVITE_LIMITS,
  createdInLastHour,
  hourlyLimitReached,
  lockCreations,
} from './creation-limits.js';
export type { HourlyCount } from './creation-limits.js';
export { saveScrubbingSettings } from './save-scrubbing-settings.js';
export { SCRUB_RULES_TTL_MS, createScrubRulesCache } from './scrub-rules-cache.js';
export type { ScrubRulesCache } from './scrub-rules-cache.js';
export {
  DEFAULT_SCRUBBING,
  SCRUB_KEYS_MAX,
  SCRUB_KEY_MAX_CHARS,
  scrubbingSettingsOf,
  scrubbingSettingsSchema,
} from './scrubbing-settings.js';
export {
  WIDGET_SETTINGS_TTL_MS,
  createWidgetSettingsCache,
  saveWidgetSettings,
  widgetSettingsOf,
} from './widget-settings.js';
export type { WidgetSettings, WidgetSettingsCache } from './widget-settings.js';
export { splitWorkspace, workspaceJoinColumns } from './workspace-join.js';
export {
  addMember,
  addMemberSchema,
  createWorkspace,
  createWorkspaceSchema,
  findMembership,
  findUserAndMembership,
  findListedMember,
  listMembers,
  listWorkspacesForUser,
  newPublicKey,
  seatUser,
  slugify,
  WORKSPACE_NAME_MAX,
} from './workspaces.js';
export type { Membership, WorkspaceWithOwner } from './workspaces.js';
