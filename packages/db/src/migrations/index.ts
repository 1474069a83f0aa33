import type { FerryMigration } from '../ferry-migration.js';
import * as foundation from './2026_11_21_0001_foundation.js';
import * as errors from './2026_11_22_0001_errors.js';
import * as webhooks from './2026_11_22_0002_webhooks.js';
import * as deliveryHeadIndex from './2026_11_22_0003_delivery_head_index.js';
import * as agents from './2026_11_22_0004_agents.js';
import * as outboxNotify from './2026_11_22_0005_outbox_notify.js';
import * as dispatch from './2026_11_22_0006_dispatch.js';
import * as feedbackVisitor from './2026_11_22_0007_feedback_visitor.js';
import * as incomingKeyNotify from './2026_11_22_0008_incoming_key_notify.js';
import * as invites from './2026_11_24_0005_invites.js';
import * as errorStoredAt from './2026_11_24_0010_error_stored_at.js';
import * as feedbackTriage from './2026_11_24_0050_feedback_triage.js';
import * as errorTriage from './2026_11_24_0030_error_triage.js';
import * as notifications from './2026_11_24_0070_notifications.js';
import * as visitorTokenHash from './2026_11_25_0010_visitor_token_hash.js';
import * as tokenRevokeNotify from './2026_11_25_0020_token_revoke_notify.js';
import * as tokenRevokedReason from './2026_11_25_0050_token_revoked_reason.js';
import * as agentCli from './2026_11_25_0060_agent_cli.js';
import * as feedbackErrorGroup from './2026_11_25_0080_feedback_error_group.js';
import * as messagePayloads from './2026_11_25_0090_message_payloads.js';
import * as errorAlerts from './2026_11_26_0100_error_alerts.js';
import * as visitorRole from './2026_11_26_0150_visitor_role.js';
import * as feedbackScreenshots from './2026_11_26_0200_feedback_screenshots.js';
import * as errorGroupSpikeCounts from './2026_11_27_0100_error_group_spike_counts.js';
import * as writerCountsOccurrences from './2026_11_27_0200_writer_counts_occurrences.js';
import * as memberMessagesByTime from './2026_11_27_0300_member_messages_by_time.js';
import * as occurrenceDetail from './2026_11_28_0100_occurrence_detail.js';
import * as sourceMaps from './2026_11_28_0200_source_maps.js';
import * as occurrenceTags from './2026_11_28_0300_occurrence_tags.js';
import * as onboarding from './2026_11_28_0400_onboarding.js';
import * as errorSearch from './2026_11_28_0500_error_search.js';
import * as errorGroupAssignee from './2026_11_28_0600_error_group_assignee.js';
import * as errorAlertRulesMany from './2026_11_28_0700_error_alert_rules_many.js';
import * as errorFingerprintRules from './2026_11_28_0800_error_fingerprint_rules.js';
import * as errorGroupReleases from './2026_11_28_0900_error_group_releases.js';
import * as errorGroupMerges from './2026_12_06_0100_error_group_merges.js';
import * as errorBulkActions from './2026_12_06_0300_error_bulk_actions.js';
import * as errorSearchByWorkspace from './2026_12_06_0400_error_search_by_workspace.js';
import * as incomingGithubSecret from './2026_12_06_0500_incoming_github_secret.js';
import * as messageFiles from './2026_12_06_0600_message_files.js';
import * as eventWebhooks from './2026_12_06_0700_event_webhooks.js';
import * as feedbackEvidence from './2026_12_06_0800_feedback_evidence.js';
import * as feedbackErrorLinks from './2026_12_06_0900_feedback_error_links.js';
import * as normalStoredUrls from './2026_12_06_1000_normal_stored_urls.js';
import * as liveIncomingKeys from './2026_12_07_0100_live_incoming_keys.js';

/**
 * Every migration, by timestamped name. Listed statically (not read from disk) so the same list
 * works under tsx, vitest and a bundled image. Add new files at the end.
 */
export const migrations: Record<string, FerryMigration> = {
  '2026_11_21_0001_foundation': foundation,
  '2026_11_22_0001_errors': errors,
  '2026_11_22_0002_webhooks': webhooks,
  '2026_11_22_0003_delivery_head_index': deliveryHeadIndex,
  '2026_11_22_0004_agents': agents,
  '2026_11_22_0005_outbox_notify': outboxNotify,
  '2026_11_22_0006_dispatch': dispatch,
  '2026_11_22_0007_feedback_visitor': feedbackVisitor,
  '2026_11_22_0008_incoming_key_notify': incomingKeyNotify,
  '2026_11_24_0005_invites': invites,
  '2026_11_24_0010_error_stored_at': errorStoredAt,
  '2026_11_24_0050_feedback_triage': feedbackTriage,
  '2026_11_24_0030_error_triage': errorTriage,
  '2026_11_24_0070_notifications': notifications,
  '2026_11_25_0010_visitor_token_hash': visitorTokenHash,
  '2026_11_25_0020_token_revoke_notify': tokenRevokeNotify,
  '2026_11_25_0050_token_revoked_reason': tokenRevokedReason,
  '2026_11_25_0060_agent_cli': agentCli,
  '2026_11_25_0080_feedback_error_group': feedbackErrorGroup,
  '2026_11_25_0090_message_payloads': messagePayloads,
  '2026_11_26_0100_error_alerts': errorAlerts,
  '2026_11_26_0150_visitor_role': visitorRole,
  '2026_11_26_0200_feedback_screenshots': feedbackScreenshots,
  '2026_11_27_0100_error_group_spike_counts': errorGroupSpikeCounts,
  '2026_11_27_0200_writer_counts_occurrences': writerCountsOccurrences,
  '2026_11_27_0300_member_messages_by_time': memberMessagesByTime,
  '2026_11_28_0100_occurrence_detail': occurrenceDetail,
  '2026_11_28_0200_source_maps': sourceMaps,
  '2026_11_28_0300_occurrence_tags': occurrenceTags,
  '2026_11_28_0400_onboarding': onboarding,
  '2026_11_28_0500_error_search': errorSearch,
  '2026_11_28_0600_error_group_assignee': errorGroupAssignee,
  '2026_11_28_0700_error_alert_rules_many': errorAlertRulesMany,
  '2026_11_28_0800_error_fingerprint_rules': errorFingerprintRules,
  '2026_11_28_0900_error_group_releases': errorGroupReleases,
  '2026_12_06_0100_error_group_merges': errorGroupMerges,
  '2026_12_06_0300_error_bulk_actions': errorBulkActions,
  // After 0300 (not 0200): a database that has run 0300 refuses an earlier, unrun migration.
  '2026_12_06_0400_error_search_by_workspace': errorSearchByWorkspace,
  '2026_12_06_0500_incoming_github_secret': incomingGithubSecret,
  '2026_12_06_0600_message_files': messageFiles,
  '2026_12_06_0700_event_webhooks': eventWebhooks,
  '2026_12_06_0800_feedback_evidence': feedbackEvidence,
  '2026_12_06_0900_feedback_error_links': feedbackErrorLinks,
  '2026_12_06_1000_normal_stored_urls': normalStoredUrls,
  '2026_12_07_0100_live_incoming_keys': liveIncomingKeys,
};
