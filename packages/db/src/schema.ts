import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

/** Timestamps come back as Date and may be written as Date or ISO string. */
type Timestamp = ColumnType<Date, Date | string, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
/** A timestamp with a database default (optional on insert). */
type DefaultTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T> = ColumnType<T, string | T, string | T>;
/** A JSON column with a database default: optional on insert. */
type JsonWithDefault<T> = ColumnType<T, string | T | undefined, string | T>;

export type Role = 'owner' | 'admin' | 'member' | 'guest';
export type RoomKind = 'channel' | 'dm' | 'conversation' | 'agent';
export type AuthorKind = 'member' | 'webhook' | 'agent' | 'system';
export type MessageKind = 'text' | 'progress' | 'proposal';
export type FeedbackStatus = 'new' | 'triaged' | 'closed';
/** SPEC.md's seven error sources (any other value is recorded as `api`), in display order. */
export const ERROR_SOURCES = ['ruby', 'js', 'api', 'mobile', 'node', 'python', 'php'] as const;
export type ErrorSource = (typeof ERROR_SOURCES)[number];

export const ERROR_STATUSES = ['unresolved', 'resolved', 'ignored'] as const;
export type ErrorStatus = (typeof ERROR_STATUSES)[number];

export function isErrorStatus(value: unknown): value is ErrorStatus {
  return ERROR_STATUSES.some((s) => s === value);
}

export function isErrorSource(value: unknown): value is ErrorSource {
  return ERROR_SOURCES.some((s) => s === value);
}
/** Postgres bigint: read as a string (see client.ts), written as a number or a string. */
type BigCount = ColumnType<string, number | string | undefined, number | string>;

export interface UsersTable {
  id: string;
  email: string;
  name: string;
  password_hash: string;
  created_at: CreatedAt;
}

/**
 * Settings > Error reporting's data scrubbing (issue 41), added to the default rules of
 * @ferry/core's scrubber. Written only by saveScrubbingSettings (lower-case, de-duplicated) and
 * read back through scrubbingSettingsOf, which falls back to the defaults on anything else.
 */
export interface WorkspaceScrubbing {
  extra_keys: string[];
  safe_fields: string[];
  keep_ip: boolean;
}

/**
 * `workspaces.settings` (jsonb, `{}` by default): per-workspace settings too small for a table of
 * their own, each under its own key so saving one never touches another.
 */
export interface WorkspaceSettings {
  scrubbing?: WorkspaceScrubbing;
  /** Settings > Widget (issue 45): attach console and network activity to feedback. */
  widget?: { capture?: boolean };
  [key: string]: unknown;
}

export interface WorkspacesTable {
  id: string;
  slug: string;
  name: string;
  public_key: string;
  settings: JsonWithDefault<WorkspaceSettings>;
  /** The dispatch identity: the member whose GitHub authorization starts hosted agent tasks. */
  dispatch_member_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: CreatedAt;
}

export interface MembersTable {
  id: string;
  workspace_id: string;
  user_id: string;
  role: Role;
  joined_at: DefaultTimestamp;
  left_at: Timestamp | null;
}

/** A seat's direct-message room with Ferry, where its notices go (migration 2026_11_28_0600). */
export interface MemberNoticeRoomsTable {
  member_id: string;
  room_id: string;
}

export interface RoomsTable {
  id: string;
  workspace_id: string;
  kind: RoomKind;
  name: string;
  created_by: string | null;
  created_at: CreatedAt;
}

export type InviteRole = Exclude<Role, 'owner'>;

/** An invite link (issue #13): whoever opens it before it expires joins with its role. */
export interface WorkspaceInvitesTable {
  id: string;
  workspace_id: string;
  role: InviteRole;
  /** SHA-256 of the link's token: how an opened link is found. */
  token_hash: string;
  /** The token sealed with APP_SECRET, so admins can copy the link again. */
  token_sealed: string;
  created_by: string | null;
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
  joined_count: ColumnType<number, number | undefined, number>;
  created_at: CreatedAt;
}

export interface RoomMembersTable {
  room_id: string;
  member_id: string;
  joined_at: DefaultTimestamp;
  left_at: Timestamp | null;
  /**
   * The newest message this seat has read (migration 0070). Set by a trigger to the room's newest
   * message whenever the seat is taken or retaken, so never written on insert.
   */
  last_read_message_id: ColumnType<string | null, never, string | null>;
}

export type MentionReason = 'mention' | 'ticket_reply' | 'assignment';

/** A message that asks for a seat's attention (migration 0070). */
export interface MentionsTable {
  member_id: string;
  message_id: string;
  room_id: string;
  reason: MentionReason;
  read_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface MessagesTable {
  id: string;
  room_id: string;
  workspace_id: string;
  author_kind: AuthorKind;
  author_member_id: string | null;
  author_ref: string | null;
  display_name: string;
  body: string;
  kind: ColumnType<MessageKind, MessageKind | undefined, MessageKind>;
  metadata: JsonWithDefault<Record<string, unknown>>;
  created_at: CreatedAt;
}

/** The original payload of an incoming webhook's message, capped at 64 KB (migration 2026_11_25_0090). */
export interface MessagePayloadsTable {
  message_id: string;
  /** How it arrived: `json`, or `form` (a `payload=` field or form fields). */
  format: string;
  payload: string;
  truncated: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: CreatedAt;
}

/** A file sent with an incoming webhook's message (migration 2026_12_06_0600); goes with it. */
export interface MessageFilesTable {
  id: string;
  message_id: string;
  workspace_id: string;
  /** As the sender named it, cleaned (no path, no control characters); escaped wherever shown. */
  name: string;
  /** An image type its magic bytes proved, or application/octet-stream: never the sender's word. */
  content_type: MessageFileType;
  byte_size: number;
  bytes: Buffer;
  created_at: CreatedAt;
}

export type MessageFileType =
  'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp' | 'application/octet-stream';

export interface FeedbackTable {
  id: string;
  workspace_id: string;
  room_id: string;
  status: ColumnType<FeedbackStatus, FeedbackStatus | undefined, FeedbackStatus>;
  title: string | null;
  note: string;
  reporter_label: string | null;
  reporter_role: string | null;
  reporter_email: string | null;
  page_url: string | null;
  page_path: string | null;
  controller_action: string | null;
  viewport_width: number | null;
  viewport_height: number | null;
  partials: JsonWithDefault<string[]>;
  element_selector: string | null;
  element_tag: string | null;
  element_text: string | null;
  element_outer_html: string | null;
  /** The widget visitor who filed it, when it came through the widget. */
  visitor_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The member who triages it (members.id); null while nobody is assigned. */
  assignee_member_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The error group it was filed from with "Fix with agent" (migration 0080); one ticket a group. */
  error_group_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: CreatedAt;
  updated_at: DefaultTimestamp;
}

/** A ticket's screenshot from the widget (migration 0200): one at most, never sent to GitHub. */
export interface FeedbackScreenshotsTable {
  feedback_id: string;
  workspace_id: string;
  /** From the magic bytes, never from what the client said. */
  content_type: ScreenshotType;
  width: number;
  height: number;
  byte_size: number;
  bytes: Buffer;
  created_at: CreatedAt;
}

export type ScreenshotType = 'image/png' | 'image/jpeg' | 'image/webp';

/** One line of a ticket's evidence timeline (issue 45), scrubbed before it was stored. */
export type EvidenceEntry =
  | { type: 'console'; t: number; level: 'log' | 'info' | 'warn' | 'error' | 'debug'; text: string }
  | {
      type: 'network';
      t: number;
      kind: 'fetch' | 'xhr';
      method: string;
      url: string;
      /** 0 when no answer came (network error, CORS refusal, abort). */
      status: number;
      ms: number;
      size: number | null;
    }
  | {
      type: 'error';
      t: number;
      kind: 'error' | 'rejection';
      name: string;
      message: string;
      stack: string;
    }
  | { type: 'navigation'; t: number; kind: 'push' | 'replace' | 'pop' | 'hash'; url: string };

export type EvidenceKind = 'console' | 'network' | 'error' | 'navigation';

/** A ticket's evidence (migration 2026_12_06_0800): the widget's capture, capped at 64 KB. */
export interface FeedbackEvidenceTable {
  feedback_id: string;
  workspace_id: string;
  /** Oldest first; `t` is the browser's clock in epoch milliseconds. */
  entries: JsonWithDefault<EvidenceEntry[]>;
  /** Per kind, entries not kept: past the widget's ring buffers or past the stored cap. */
  dropped: JsonWithDefault<Partial<Record<EvidenceKind, number>>>;
  byte_size: number;
  /** The browser's clock when the person sent the report (the timeline's "0"). */
  captured_at: Date;
  created_at: CreatedAt;
}

/** Issue 45: a ticket linked to an error group, by the visitor's occurrences or by hand. */
export interface FeedbackErrorLinksTable {
  feedback_id: string;
  group_id: string;
  workspace_id: string;
  origin: 'visitor' | 'hand';
  /** The ticket's visitor's occurrences of the group in the window around the report. */
  occurrences: ColumnType<number, number | undefined, number>;
  linked_by: string | null;
  /** Set by a member's unlink: kept so the visitor's next occurrence does not link it again. */
  unlinked_at: Date | null;
  unlinked_by: string | null;
  created_at: CreatedAt;
}

export type TokenScope = 'platform:dispatch' | 'tenant:write' | 'tenant:read' | 'releases:write';

export interface ApiTokensTable {
  id: string;
  workspace_id: string;
  name: string;
  scopes: TokenScope[];
  token_hash: string;
  prefix: string;
  created_by: string | null;
  created_at: CreatedAt;
  last_used_at: Timestamp | null;
  revoked_at: Timestamp | null;
  /** Set when the maker's leaving or demotion revoked it (null: revoked by hand, or live). */
  revoked_reason: string | null;
}

export interface VisitorsTable {
  id: string;
  workspace_id: string;
  /** SHA-256 of the visitor token (X-Service-Visitor): how a visitor is found; never the token. */
  token_hash: string;
  /** The token's first characters, to tell visitors apart on the Errors page. */
  token_prefix: string;
  /** The label `service('identify', …)` gave, if any. */
  name: string | null;
  email: string | null;
  /** The role `service('identify', …)` gave, if any. */
  role: string | null;
  created_at: CreatedAt;
  last_seen_at: DefaultTimestamp;
}

export interface OutboxTable {
  seq: Generated<string>;
  id: string;
  type: string;
  payload: Json<unknown>;
  created_at: CreatedAt;
  sent_at: Timestamp | null;
}

export interface ErrorGroupsTable {
  id: string;
  workspace_id: string;
  /** SHA-256 hex of the error class and the top frame (or the message prefix). */
  fingerprint: string;
  error_class: string;
  latest_message: string;
  /** Source of the latest occurrence. */
  source: ErrorSource;
  /** Occurrences ever grouped here; pruning does not lower it. */
  occurrence_count: BigCount;
  first_seen_at: Timestamp;
  last_seen_at: Timestamp;
  /** Triage: a resolved group that gets a new occurrence goes back to unresolved. */
  status: Generated<ErrorStatus>;
  /** When a member last set the status; null when never triaged. */
  status_changed_at: Timestamp | null;
  /** When a resolved group got a new occurrence (a regression); cleared when triaged again. */
  regressed_at: Timestamp | null;
  /** Distinct environments of its occurrences, sorted; at most ERROR_GROUP_ENVIRONMENTS_MAX. */
  environments: ColumnType<string[], string[] | undefined, string[]>;
  /**
   * Recent occurrences for the workspace's spike rule (migration 2026_11_27_0100): slots of this
   * many seconds, the newest slot's number, and the 7 slots' counts newest first. Null without
   * a rule. Written by the error writer's upsert only.
   */
  spike_slot_seconds: ColumnType<number | null, number | null | undefined, number | null>;
  spike_latest_slot: ColumnType<string | null, string | null | undefined, string | null>;
  spike_slots: ColumnType<number[] | null, number[] | null | undefined, number[] | null>;
  /** Who looks after the group (issue 43); null: nobody. Set only by assignErrorGroup. */
  assignee_member_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** Issue 43: the release of its earliest / latest occurrence (the writer keeps them). */
  first_release: ColumnType<string | null, string | null | undefined, string | null>;
  last_release: ColumnType<string | null, string | null | undefined, string | null>;
  /** The release of the occurrence that last reopened it. */
  regressed_in_release: ColumnType<string | null, string | null | undefined, string | null>;
  /** "Resolve in next release": occurrences on this release or older ones do not reopen it. */
  resolved_in_release: ColumnType<string | null, string | null | undefined, string | null>;
  /** "line N: <rule>" when a workspace's fingerprint rule made the group (issue 43); set once. */
  fingerprint_rule: ColumnType<string | null, string | null | undefined, string | null>;
}

/** Issue 43: one bulk action over error groups, its selection and its progress (migration 2026_12_06_0300). */
export type ErrorBulkActionKind = 'resolve' | 'ignore' | 'unresolve' | 'assign' | 'merge';
export type ErrorBulkActionStatus = 'queued' | 'running' | 'done' | 'failed';

export interface ErrorBulkActionsTable {
  id: string;
  workspace_id: string;
  /** The member who asked; null for an API client (or a seat since gone). */
  created_by: string | null;
  action: ErrorBulkActionKind;
  /** `assign`: who gets the groups; null unassigns. */
  assignee_member_id: string | null;
  /** `merge`: the group the others are merged into, chosen when the action is asked for. */
  target_group_id: string | null;
  /** The search that picked the groups, as typed; null when ids were sent. */
  query: string | null;
  /** The selection, in id order, as it was when asked for. */
  group_ids: string[];
  total: number;
  /** How many of group_ids are done: the cursor a re-run job goes on from. */
  processed: Generated<number>;
  /** Groups the action found and acted on (one merged away meanwhile is not). */
  changed: Generated<number>;
  status: Generated<ErrorBulkActionStatus>;
  /** Why it failed, when it did. */
  error: string | null;
  created_at: CreatedAt;
  finished_at: Timestamp | null;
}

/** A workspace's fingerprint rules as saved: text that parsed (issue 43). */
export interface ErrorFingerprintRulesTable {
  workspace_id: string;
  source: string;
  updated_at: DefaultTimestamp;
}

/**
 * Issue 43: a fingerprint merged into a group (migration 2026_12_06_0100). The writer files its
 * occurrences under `group_id`; `merged_group_id` is the group it was, whose old links follow it.
 */
export interface ErrorGroupFingerprintsTable {
  workspace_id: string;
  fingerprint: string;
  group_id: string;
  merged_group_id: string;
  error_class: string;
  latest_message: string;
  /** Occurrences the merged group brought with it. */
  occurrence_count: BigCount;
  merged_at: DefaultTimestamp;
  /** The member who merged; null for an API client (or a seat since removed). */
  merged_by: string | null;
}

/** A group remembers this many environments: reports can name any, and the key is public. */
export const ERROR_GROUP_ENVIRONMENTS_MAX = 20;

export interface ErrorOccurrencesTable {
  /** `err_…`, given at HTTP accept time: inserts are idempotent on it. */
  id: string;
  workspace_id: string;
  group_id: string;
  visitor_id: string | null;
  error_class: string;
  message: string;
  backtrace: ColumnType<string[], string[] | undefined, string[]>;
  url: string | null;
  request_method: string | null;
  request_path: string | null;
  environment: string | null;
  app_version: string | null;
  context: JsonWithDefault<Record<string, unknown>>;
  /** Issue 41: the structured detail (@ferry/workspace OccurrenceDetail); null for native reports. */
  detail: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  /** Issue 41: the SDK's tags and browser, os, runtime, device: what the tag breakdown counts. */
  tags: ColumnType<Record<string, string> | null, string | null | undefined, string | null>;
  source: ErrorSource;
  occurred_at: Timestamp;
  received_at: Timestamp;
  /** When the ingest worker's insert committed (column default): the Ops page's "stored". */
  stored_at: DefaultTimestamp;
}

/** Issue 41: a piece of an artifact bundle, between sentry-cli's chunk POST and its assemble. */
export interface UploadChunksTable {
  workspace_id: string;
  /** SHA-1 hex of the uncompressed chunk: sentry-cli's name for it. */
  checksum: string;
  data: Buffer;
  created_at: CreatedAt;
}

/** Issue 41: an assembled artifact bundle (sentry-cli sourcemaps upload). */
export interface ArtifactBundlesTable {
  id: string;
  workspace_id: string;
  /** SHA-1 hex of the whole zip: an upload of the same bundle again is answered from this row. */
  checksum: string;
  release: string | null;
  dist: string | null;
  /** The unzipped files' bytes: what counts against the workspace's quota. */
  size_bytes: ColumnType<string, number | string, number | string>;
  file_count: number;
  created_at: CreatedAt;
}

export type ArtifactKind = 'minified_source' | 'source_map';

/** Issue 41: one minified file or source map of a bundle. */
export interface ArtifactFilesTable {
  bundle_id: string;
  workspace_id: string;
  /** The path inside the bundle's zip. */
  path: string;
  kind: ArtifactKind;
  /** `~/assets/app.min.js` (any scheme and host) or a whole URL, as sentry-cli names it. */
  url: string;
  debug_id: string | null;
  /** A minified file's `sourcemap` header: its map's URL, relative to its own. */
  sourcemap: string | null;
  content: Buffer;
}

/** Issue 41: `sentry-cli releases new` and `finalize`. */
export interface ReleasesTable {
  workspace_id: string;
  version: string;
  url: string | null;
  date_started: Timestamp | null;
  date_released: Timestamp | null;
  created_at: CreatedAt;
  /** Issue 43: the earliest event seen on it (the writer adds releases its events name). */
  first_event_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

/** Issue 41: `sentry-cli deploys new`. */
export interface ReleaseDeploysTable {
  id: string;
  workspace_id: string;
  version: string;
  environment: string;
  name: string | null;
  url: string | null;
  date_started: Timestamp | null;
  date_finished: Timestamp;
  created_at: CreatedAt;
}

/** Issue 26: a workspace's error alert rule (its URL is the hook `hook_id` names). */
/** Issue 43: several per workspace, each with its triggers, filters and actions. */
export interface ErrorAlertRulesTable {
  id: string;
  workspace_id: string;
  name: ColumnType<string, string | undefined, string>;
  created_at: CreatedAt;
  room_id: string | null;
  new_group: boolean;
  regression: boolean;
  frequency_count: number | null;
  frequency_minutes: number | null;
  hook_id: string | null;
  environments: string[] | null;
  /** Filters: null is every value; a list keeps occurrences matching one of them. */
  sources: ErrorSource[] | null;
  levels: string[] | null;
  releases: string[] | null;
  /** `key=value`, the value a `*` glob; every one must match. */
  tags: string[] | null;
  /** Members notified of each alert (their Mentions, linking the room's message). */
  notify_member_ids: string[] | null;
  hand_to_agent: ColumnType<boolean, boolean | undefined, boolean>;
  updated_by: string | null;
  updated_at: DefaultTimestamp;
}

export type ErrorAlertTrigger = 'created' | 'regressed' | 'spiking';

export interface ErrorAlertStateTable {
  group_id: string;
  rule_id: string;
  trigger: ErrorAlertTrigger;
  last_alert_at: Timestamp;
}

export interface ErrorAlertWindowsTable {
  rule_id: string;
  workspace_id: string;
  window_start: Timestamp;
  alerts: number;
  held_posted: ColumnType<boolean, boolean | undefined, boolean>;
}

export interface ErrorAlertHandoffsTable {
  group_id: string;
  rule_id: string | null;
  handed_at: DefaultTimestamp;
}

/** Kept by triggers on error_occurrences; a workspace without a row has none retained. */
export interface ErrorWorkspaceStatsTable {
  workspace_id: string;
  retained_occurrences: BigCount;
}

export interface IncomingWebhooksTable {
  id: string;
  workspace_id: string;
  room_id: string;
  name: string;
  key_hash: string;
  key_prefix: string;
  key_sealed: string;
  /** Issue 44: the GitHub signing secret for `/wh/in/<key>/github`, sealed (SecretBox); optional. */
  github_secret_sealed: string | null;
  github_secret_set_at: Timestamp | null;
  created_by: string;
  created_at: CreatedAt;
  rotated_at: Timestamp | null;
  disabled_at: Timestamp | null;
  deleted_at: Timestamp | null;
}

/**
 * A view (migration 2026_12_07_0100): the incoming-webhook keys that may post right now, with the
 * name their messages are posted under. Read-only.
 */
export interface LiveIncomingKeysView {
  id: string;
  key_hash: string;
  workspace_id: string;
  room_id: string;
  name: string;
  created_by: string;
  creator_name: string;
  github_secret_sealed: string | null;
}

export interface IncomingWebhookRequestsTable {
  webhook_id: string;
  idempotency_key: string;
  message_id: string;
  created_at: CreatedAt;
}

export type OutgoingWebhookState = 'enabled' | 'disabled';

/**
 * Who a hook belongs to: a room (its messages), the workspace's error alert rule, or the workspace
 * as an event webhook endpoint (issue 44: event_endpoints holds its subscription).
 */
export type OutgoingWebhookOwner = 'room' | 'error_alerts' | 'event_endpoint';

export interface OutgoingWebhooksTable {
  id: string;
  workspace_id: string;
  /** The room whose messages it is sent; null for the error alert rule's hook. */
  room_id: string | null;
  owner: ColumnType<OutgoingWebhookOwner, OutgoingWebhookOwner | undefined, never>;
  target_url: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Timestamp | null;
  state: ColumnType<OutgoingWebhookState, OutgoingWebhookState | undefined, OutgoingWebhookState>;
  disabled_reason: string | null;
  consecutive_failures: ColumnType<number, number | undefined, number>;
  /** Sends a second at most (event endpoints); null: unlimited. */
  max_per_second: ColumnType<number | null, number | null | undefined, number | null>;
  created_by: string | null;
  created_at: CreatedAt;
  updated_at: DefaultTimestamp;
}

/** A workspace event webhook endpoint's subscription (its hook is outgoing_webhooks.id). */
export interface EventEndpointsTable {
  hook_id: string;
  workspace_id: string;
  description: ColumnType<string, string | undefined, string>;
  /** Catalog event types it receives. */
  event_types: string[];
  /** Error events only from these environments; null: every one. */
  environments: string[] | null;
  /** message.created only from these rooms; null: no room (message.created needs rooms). */
  room_ids: string[] | null;
  created_at: CreatedAt;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'held';

export interface WebhookDeliveriesTable {
  id: string;
  hook_id: string;
  message_id: string | null;
  event: string;
  body: string;
  status: ColumnType<DeliveryStatus, DeliveryStatus | undefined, DeliveryStatus>;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: Timestamp | null;
  last_status_code: number | null;
  created_at: CreatedAt;
  delivered_at: Timestamp | null;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  attempted_at: DefaultTimestamp;
  status_code: number | null;
  duration_ms: number;
  response_excerpt: string | null;
  error: string | null;
}

export type AgentWorkKind = 'feedback' | 'message';
export type ShipRoute = 'quick_fix' | 'pr';

export interface AgentsTable {
  id: string;
  workspace_id: string;
  install_id: string;
  name: string;
  room_id: string;
  receives_feedback: ColumnType<boolean, boolean | undefined, boolean>;
  wake_url: string | null;
  wake_token_sealed: string | null;
  token_id: string | null;
  last_heartbeat_at: Timestamp | null;
  activity: string | null;
  /** The coding CLI and its version as the agent reported it ("claude 2.1.332"). */
  cli: string | null;
  stream_seen_at: Timestamp | null;
  woken_at: Timestamp | null;
  created_at: CreatedAt;
}

export interface AgentWorkTable {
  id: string;
  seq: Generated<string>;
  agent_id: string;
  workspace_id: string;
  kind: AgentWorkKind;
  source: string;
  conversation_id: string;
  payload: Json<unknown>;
  created_at: CreatedAt;
  delivered_at: Timestamp | null;
  acked_at: Timestamp | null;
}

export interface AgentProposalsTable {
  id: string;
  work_id: string;
  agent_id: string;
  message_id: string;
  summary: string;
  files: Json<string[]>;
  lines: number;
  route: ShipRoute;
  reason: string;
  created_at: CreatedAt;
}

export interface ShipPoliciesTable {
  workspace_id: string;
  max_files: ColumnType<number, number | undefined, number>;
  max_lines: ColumnType<number, number | undefined, number>;
  always_reviewed: ColumnType<string[], string[] | undefined, string[]>;
  updated_at: DefaultTimestamp;
}

export interface GithubInstallationsTable {
  id: string;
  workspace_id: string;
  installation_id: string;
  account_login: string;
  connected_by: string | null;
  repos_synced_at: Timestamp | null;
  created_at: CreatedAt;
}

export interface GithubReposTable {
  id: string;
  workspace_id: string;
  github_id: string;
  node_id: string;
  full_name: string;
  default_branch: string;
  linked: ColumnType<boolean, boolean | undefined, boolean>;
  enabled: ColumnType<boolean, boolean | undefined, boolean>;
  reachable: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: CreatedAt;
  updated_at: DefaultTimestamp;
}

export interface GithubAuthorizationsTable {
  id: string;
  workspace_id: string;
  member_id: string;
  github_login: string;
  github_user_id: string;
  access_token_sealed: string;
  access_expires_at: Timestamp | null;
  refresh_token_sealed: string | null;
  refresh_expires_at: Timestamp | null;
  created_at: CreatedAt;
  updated_at: DefaultTimestamp;
}

export type DispatchStatus =
  | 'queued'
  | 'issue_opened'
  | 'agent_started'
  | 'assigned'
  | 'pr_opened'
  | 'waiting_on_user'
  | 'completed'
  | 'failed';

export interface DispatchesTable {
  id: string;
  workspace_id: string;
  feedback_id: string;
  repo_id: string;
  started_via: 'api' | 'member';
  started_by_member_id: string | null;
  started_by_token_id: string | null;
  run_as_member_id: string | null;
  issue_requested_at: Timestamp | null;
  task_requested_at: Timestamp | null;
  status: ColumnType<DispatchStatus, DispatchStatus | undefined, DispatchStatus>;
  issue_number: number | null;
  issue_node_id: string | null;
  issue_url: string | null;
  task_id: string | null;
  task_state: string | null;
  pr_url: string | null;
  error: string | null;
  triaged_at: Timestamp | null;
  polls: ColumnType<number, number | undefined, number>;
  retries: ColumnType<number, number | undefined, number>;
  created_at: CreatedAt;
  updated_at: DefaultTimestamp;
  finished_at: Timestamp | null;
}

/** A workspace whose admin hid the Dashboard's checklist, for everyone (migration 2026_11_28_0400). */
export interface OnboardingDismissalsTable {
  workspace_id: string;
  /** The admin's seat; null once that seat is gone. */
  dismissed_by: string | null;
  dismissed_at: CreatedAt;
}

export interface Database {
  github_installations: GithubInstallationsTable;
  github_repos: GithubReposTable;
  github_authorizations: GithubAuthorizationsTable;
  dispatches: DispatchesTable;
  agents: AgentsTable;
  agent_work: AgentWorkTable;
  agent_proposals: AgentProposalsTable;
  ship_policies: ShipPoliciesTable;
  incoming_webhooks: IncomingWebhooksTable;
  incoming_webhook_requests: IncomingWebhookRequestsTable;
  live_incoming_keys: LiveIncomingKeysView;
  outgoing_webhooks: OutgoingWebhooksTable;
  event_endpoints: EventEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  users: UsersTable;
  workspaces: WorkspacesTable;
  members: MembersTable;
  workspace_invites: WorkspaceInvitesTable;
  rooms: RoomsTable;
  room_members: RoomMembersTable;
  mentions: MentionsTable;
  messages: MessagesTable;
  message_payloads: MessagePayloadsTable;
  message_files: MessageFilesTable;
  feedback: FeedbackTable;
  feedback_screenshots: FeedbackScreenshotsTable;
  feedback_evidence: FeedbackEvidenceTable;
  feedback_error_links: FeedbackErrorLinksTable;
  api_tokens: ApiTokensTable;
  visitors: VisitorsTable;
  outbox: OutboxTable;
  error_groups: ErrorGroupsTable;
  error_bulk_actions: ErrorBulkActionsTable;
  error_group_fingerprints: ErrorGroupFingerprintsTable;
  member_notice_rooms: MemberNoticeRoomsTable;
  error_occurrences: ErrorOccurrencesTable;
  error_workspace_stats: ErrorWorkspaceStatsTable;
  error_alert_rules: ErrorAlertRulesTable;
  error_fingerprint_rules: ErrorFingerprintRulesTable;
  error_alert_state: ErrorAlertStateTable;
  error_alert_windows: ErrorAlertWindowsTable;
  error_alert_handoffs: ErrorAlertHandoffsTable;
  upload_chunks: UploadChunksTable;
  artifact_bundles: ArtifactBundlesTable;
  artifact_files: ArtifactFilesTable;
  releases: ReleasesTable;
  release_deploys: ReleaseDeploysTable;
  onboarding_dismissals: OnboardingDismissalsTable;
}

export type User = Selectable<UsersTable>;
export type Workspace = Selectable<WorkspacesTable>;
export type ErrorBulkAction = Selectable<ErrorBulkActionsTable>;
export type Member = Selectable<MembersTable>;
export type WorkspaceInvite = Selectable<WorkspaceInvitesTable>;
export type Room = Selectable<RoomsTable>;
export type Message = Selectable<MessagesTable>;
export type NewMessage = Insertable<MessagesTable>;
export type MessagePayload = Selectable<MessagePayloadsTable>;
export type MessageFile = Selectable<MessageFilesTable>;
export type Feedback = Selectable<FeedbackTable>;
export type NewFeedback = Insertable<FeedbackTable>;
export type FeedbackUpdate = Updateable<FeedbackTable>;
export type FeedbackScreenshot = Selectable<FeedbackScreenshotsTable>;
export type FeedbackEvidence = Selectable<FeedbackEvidenceTable>;
export type ApiToken = Selectable<ApiTokensTable>;
export type Visitor = Selectable<VisitorsTable>;
export type OutboxRow = Selectable<OutboxTable>;
export type ErrorGroup = Selectable<ErrorGroupsTable>;
export type NewErrorGroup = Insertable<ErrorGroupsTable>;
export type ErrorGroupFingerprintRow = Selectable<ErrorGroupFingerprintsTable>;
export type ErrorOccurrence = Selectable<ErrorOccurrencesTable>;
export type NewErrorOccurrence = Insertable<ErrorOccurrencesTable>;
export type ErrorWorkspaceStats = Selectable<ErrorWorkspaceStatsTable>;
export type ErrorAlertRule = Selectable<ErrorAlertRulesTable>;
export type IncomingWebhook = Selectable<IncomingWebhooksTable>;
export type OutgoingWebhook = Selectable<OutgoingWebhooksTable>;
export type EventEndpoint = Selectable<EventEndpointsTable>;
export type WebhookDelivery = Selectable<WebhookDeliveriesTable>;
export type WebhookAttempt = Selectable<WebhookAttemptsTable>;
export type Agent = Selectable<AgentsTable>;
export type AgentWork = Selectable<AgentWorkTable>;
export type AgentProposal = Selectable<AgentProposalsTable>;
export type ShipPolicy = Selectable<ShipPoliciesTable>;
export type GithubInstallation = Selectable<GithubInstallationsTable>;
export type GithubRepo = Selectable<GithubReposTable>;
export type GithubAuthorization = Selectable<GithubAuthorizationsTable>;
export type Dispatch = Selectable<DispatchesTable>;
