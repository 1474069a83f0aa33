import { DEFAULT_SCRUB_RULES, scrubText, scrubValue, truncate, type ScrubRules } from '@ferry/core';
import {
  DETAIL_LIMITS,
  OCCURRENCE_LIMITS,
  type DetailFrame,
  type OccurrenceDetail,
} from '@ferry/workspace';
import { boundDetail } from './detail-bounds.js';
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

/** A record of text with sensitive keys filtered and the rest scrubbed, cut to `max` again. */
function scrubRecord(
  record: Record<string, string> | undefined,
  rules: ScrubRules,
  max: number,
): Record<string, string> | undefined {
  if (!record) return undefined;
  const scrubbed = scrubValue(record, rules) as Record<string, string>;
  return Object.fromEntries(
    Object.entries(scrubbed).map(([key, value]) => [key, truncate(value, max)]),
  );
}

/**
 * The structured detail with the same rules, part by part (so a line of code that mentions
 * "token" is not taken for a `[name, value]` pair): tags, user, contexts and breadcrumb data by
 * key; URLs and query strings by their sensitive parameters; headers as `[name, value]` pairs;
 * messages, exception values and code lines for card numbers and bearer tokens. The user's IP
 * (`user.ip_address`, X-Forwarded-For and the other address headers, any context's `ip_address`)
 * goes by the same key rule unless the workspace keeps it (ScrubRules.keepIp, @ferry/core). Cut to
 * the caps again after, the total cap included.
 */
export function scrubDetail(
  detail: OccurrenceDetail,
  rules: ScrubRules = DEFAULT_SCRUB_RULES,
): OccurrenceDetail {
  const cap = DETAIL_LIMITS;
  const text = (value: string | undefined, max: number): string | undefined =>
    value === undefined ? undefined : truncate(scrubText(value, rules), max);
  const frame = (f: DetailFrame): DetailFrame => ({
    ...f,
    ...(f.pre_context && { pre_context: f.pre_context.map((l) => text(l, cap.contextLineChars)!) }),
    ...(f.context_line !== undefined && {
      context_line: text(f.context_line, cap.contextLineChars),
    }),
    ...(f.post_context && {
      post_context: f.post_context.map((l) => text(l, cap.contextLineChars)!),
    }),
  });
  const scrubbed: OccurrenceDetail = { ...detail };
  if (detail.exceptions) {
    scrubbed.exceptions = detail.exceptions.map((e) => ({
      ...e,
      value: text(e.value, cap.exceptionValueChars)!,
      frames: e.frames.map(frame),
    }));
  }
  if (detail.frames) scrubbed.frames = detail.frames.map(frame);
  if (detail.breadcrumbs) {
    scrubbed.breadcrumbs = detail.breadcrumbs.map((crumb) => ({
      ...crumb,
      ...(crumb.message !== undefined && {
        message: text(crumb.message, cap.breadcrumbMessageChars),
      }),
      ...(crumb.data !== undefined && { data: scrubValue(crumb.data, rules) }),
    }));
  }
  scrubbed.tags = scrubRecord(detail.tags, rules, cap.tagValueChars);
  scrubbed.user = scrubRecord(detail.user, rules, cap.userFieldChars);
  if (detail.contexts) {
    scrubbed.contexts = Object.fromEntries(
      Object.entries(detail.contexts).map(([name, record]) => [
        name,
        scrubRecord(record, rules, cap.contextValueChars)!,
      ]),
    );
  }
  if (detail.request) {
    const { url, query_string: query, headers } = detail.request;
    scrubbed.request = {
      ...detail.request,
      ...(url !== undefined && { url: text(url, cap.requestUrlChars) }),
      // The query pattern wants its leading `?`.
      ...(query !== undefined && {
        query_string: text(`?${query}`, cap.requestUrlChars)!.slice(1),
      }),
      ...(headers && {
        headers: headers.map(
          (pair) =>
            (scrubValue(pair, rules) as [string, string]).map((part, at) =>
              at === 1 ? truncate(part, cap.headerValueChars) : part,
            ) as [string, string],
        ),
      }),
    };
  }
  for (const key of ['tags', 'user', 'contexts'] as const) {
    if (scrubbed[key] === undefined) delete scrubbed[key];
  }
  return boundDetail(scrubbed);
}
