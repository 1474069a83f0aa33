import { DEFAULT_SCRUB_RULES, scrubText, scrubValue, truncate, type ScrubRules } from '@ferry/core';
import { OCCURRENCE_LIMITS } from '@ferry/workspace';
import type { StoredReport } from './report.js';

/**
 * A decoded report with @ferry/core's scrubber applied (issue 41), on every path (/ingest/errors,
 * Sentry's envelope and store) in acceptReports, before the fingerprint and before anything is
 * queued: the message, the URL and the whole context. `[Filtered]` can be longer than what it
 * replaced (a short bearer token), so the fields are cut to their caps again.
 */
export function scrubReport(
  report: StoredReport,
  rules: ScrubRules = DEFAULT_SCRUB_RULES,
): StoredReport {
  const context = scrubValue(report.context, rules) as Record<string, unknown>;
  for (const [key, value] of Object.entries(context)) {
    if (typeof value === 'string') context[key] = truncate(value, OCCURRENCE_LIMITS.contextValue);
  }
  return {
    ...report,
    message: truncate(scrubText(report.message, rules), OCCURRENCE_LIMITS.message),
    url: report.url === null ? null : truncate(scrubText(report.url, rules), OCCURRENCE_LIMITS.url),
    context,
  };
}
