export {
  errorGroupJsonSchema,
  errorGroupListJsonSchema,
  errorOccurrenceJsonSchema,
  groupFingerprintJsonSchema,
} from './api-schemas.js';
export type { ErrorGroupJson, ErrorOccurrenceJson, GroupFingerprintJson } from './api-schemas.js';
export {
  ALERT_COOLDOWN_MS,
  ROOM_ALERTS_PER_HOUR,
  occurrencesCounted,
  postHeldAlertsLine,
  raiseErrorAlerts,
  readAlertRules,
  spikeCountsOnInsert,
  spikeCountsOnUpsert,
  spikeRecent,
  spikeWindows,
} from './error-alert-raise.js';
export type {
  AlertCandidate,
  AlertRule,
  RaiseOptions,
  RaisedAlerts,
  SpikeWindow,
} from './error-alert-raise.js';
export {
  alertFacets,
  facetsMatch,
  globMatches,
  occurrencesMatching,
  splitTagFilter,
  occurrenceRelease,
} from './alert-filters.js';
export type { AlertFacets, AlertFilters, FacetSource } from './alert-filters.js';
export {
  ALERT_EVENT,
  ENVIRONMENT_NAME_MAX,
  ERROR_ALERT_SENDER,
  errorAlertMessage,
  errorAlertPayload,
  deleteErrorAlertRule,
  errorAlertRuleJson,
  errorAlertRuleSchema,
  errorAlertRulesJson,
  errorAlertRulesSchema,
  findErrorAlertRule,
  listErrorAlertRules,
  saveErrorAlertRule,
  validateErrorAlertRule,
  findErrorAlertSettings,
  heldAlertsMessage,
  saveErrorAlertRules,
  validateErrorAlertRules,
} from './error-alerts.js';
export type {
  ErrorAlert,
  ErrorAlertPayload,
  ErrorAlertRuleInput,
  ErrorAlertRuleSettings,
  ErrorAlertRulesInput,
  ErrorAlertSettings,
  SavedErrorAlertRules,
} from './error-alerts.js';
export {
  errorAlertRuleJsonSchema,
  errorAlertRulesJsonSchema,
  savedErrorAlertRuleJsonSchema,
  savedErrorAlertRulesJsonSchema,
  errorAlertPayloadSchema,
} from './alert-schemas.js';
export type { ErrorAlertRuleJson, ErrorAlertRulesJson } from './alert-schemas.js';
export {
  assignErrorGroup,
  assigneeIdSchema,
  assigneeNames,
  notifyRegressedAssignees,
} from './error-assign.js';
export type { AssignActor } from './error-assign.js';
export {
  ERROR_BULK_ACTIONS,
  ERROR_BULK_IDS_MAX,
  ERROR_BULK_INLINE_MAX,
  ERROR_BULK_MAX,
  errorBulkActionJson,
  errorBulkActionJsonSchema,
  errorBulkRequestSchema,
  findErrorBulkAction,
  previewErrorBulkMerge,
  runningErrorBulkActions,
  startErrorBulkAction,
} from './error-bulk.js';
export type { BulkSelection, ErrorBulkRequest, StartBulkInput } from './error-bulk.js';
export { ERROR_BULK_CHUNK, runErrorBulkAction, runSmallErrorBulkAction } from './error-bulk-run.js';
export {
  FINGERPRINTS_SHOWN,
  MERGE_SOURCES_MAX,
  countMergedFingerprints,
  groupFingerprints,
  mergeErrorGroups,
  mergedInto,
  unmergeFingerprint,
} from './error-merge.js';
export type { GroupFingerprint, MergeActor } from './error-merge.js';
export {
  holdOffMerges,
  lockForMerge,
  mergedFingerprintKey,
  mergedFingerprintTargets,
} from './merge-lock.js';
export {
  culprit,
  errorTicketInput,
  fileTicketForErrorGroup,
  ticketForErrorGroup,
} from './error-fix.js';
export type { ErrorTicket } from './error-fix.js';
export {
  SPARKLINE_DAYS,
  errorsAtAGlance,
  groupLatestFacts,
  occurrencePage,
  occurrenceSparklines,
  setErrorGroupStatus,
} from './error-triage.js';
export type { ErrorsAtAGlance, GroupLatestFacts, OccurrencePage } from './error-triage.js';
export {
  ERRORS_WRITTEN_EVENT,
  chunkErrorsWritten,
  createErrorsAnnouncer,
  errorsWrittenSchema,
  writtenGroupSchema,
} from './errors-live.js';
export type {
  ErrorsAnnouncer,
  ErrorsWritten,
  WorkspaceErrorsWritten,
  WrittenGroup,
} from './errors-live.js';
export {
  ERROR_GROUPS_PAGE_SIZE,
  ERROR_SOURCES,
  ERROR_STATUSES,
  OCCURRENCES_PAGE_SIZE,
  OCCURRENCES_SHOWN,
  addRetainedOccurrences,
  countErrorGroups,
  errorEnvironments,
  errorGroupJson,
  errorGroupsMatching,
  errorOccurrenceJson,
  findErrorGroup,
  findErrorOccurrence,
  ingestCurlExample,
  isErrorSource,
  isErrorStatus,
  latestOccurrences,
  listErrorGroups,
  retainedByWorkspace,
  retainedOccurrences,
  sentryDsn,
  sentrySnippets,
  sumCounts,
} from './errors.js';
export type {
  ErrorGroupFilter,
  ErrorGroupPage,
  OccurrenceVisitor,
  OccurrenceWithVisitor,
  SentrySdkName,
} from './errors.js';
export {
  DETAIL_CONTEXTS,
  DETAIL_LIMITS,
  breadcrumbSchema,
  detailExceptionSchema,
  detailFrameSchema,
  anyFrameMapped,
  detailFrameLine,
  detailFrames,
  detailTags,
  contextTags,
  occurrenceDetailSchema,
} from './detail.js';
export { createSymbolicator, newestBuildOf, withMappedDetail } from './symbolicate.js';
export { TOP_TAG_VALUES, occurrenceHours, tagBreakdown } from './group-breakdown.js';
export type { TagBreakdown, TagValueShare } from './group-breakdown.js';
export type { Symbolicator } from './symbolicate.js';
export type { Breadcrumb, DetailException, DetailFrame, OccurrenceDetail } from './detail.js';
export { OCCURRENCE_LIMITS, occurrenceFieldsSchema } from './occurrence.js';
export type { OccurrenceFields } from './occurrence.js';
export {
  ERROR_LEVELS,
  SEARCH_QUERY_MAX,
  SearchSyntaxError,
  parseSearch,
  searchValue,
  withKeyReplaced,
} from './search-query.js';
export type { SearchTerm } from './search-query.js';
export { checkedSearch, globPattern, searchCondition } from './search-sql.js';
export {
  RULES_MAX,
  RULES_SOURCE_MAX,
  RULE_MATCHERS,
  RULE_VARIABLES,
  firstMatchingRule,
  parseFingerprintRules,
  ruleFingerprintParts,
  ruleLabel,
} from './fingerprint-rules.js';
export type {
  FingerprintRule,
  ParsedRules,
  RuleSubject,
  RuleSyntaxError,
} from './fingerprint-rules.js';
export { ruleSubject } from './fingerprint-rule-subject.js';
export type { RuleSource } from './fingerprint-rule-subject.js';
export {
  RULE_TEST_OCCURRENCES,
  fingerprintRulesSource,
  readFingerprintRules,
  saveFingerprintRules,
  testFingerprintRules,
} from './fingerprint-rules-store.js';
export type { RuleTestResult } from './fingerprint-rules-store.js';
export {
  compareReleases,
  compareSemver,
  listReleases,
  orderReleases,
  parseSemver,
  recordSeenReleases,
  reopenOnNewerRelease,
  newestRelease,
  resolveInNextRelease,
  RELEASES_LISTED,
} from './releases.js';
export type { FirstSeen, HeldResolution, ReleaseSummary } from './releases.js';
export { API_ACTOR, SYSTEM_ACTOR, errorWriterEvents } from './error-events.js';
