import { alertFacets, type FacetSource } from './alert-filters.js';
import { detailFrames } from './detail.js';
import type { RuleSubject } from './fingerprint-rules.js';

/** The occurrence fields a fingerprint rule reads (a writer's report, or a stored occurrence). */
export interface RuleSource extends FacetSource {
  error_class: string;
  message: string;
  backtrace: readonly string[];
}

/** SPEC.md's backtrace line `file:line[:column][:in function]`, as far as it says. */
const BACKTRACE_LINE = /^(.*?)(?::\d+)+(?::in [`']?(.+?)[`']?)?$/;

function backtraceFrames(backtrace: readonly string[]): RuleSubject['frames'] {
  return backtrace.map((line) => {
    const parts = BACKTRACE_LINE.exec(line.trim());
    if (!parts) return { absPath: line.trim() };
    return parts[2] ? { absPath: parts[1]!, function: parts[2] } : { absPath: parts[1]! };
  });
}

/**
 * What the rules see of one occurrence. A Sentry event answers from its own exception and frames
 * (`error.value` is the raised exception's value, `stack.module` its frames' modules); a native
 * `/ingest/errors` report from its class, message and backtrace lines (it has no modules).
 * Release, environment and tags are read as search and alert filters read them.
 */
export function ruleSubject(report: RuleSource): RuleSubject {
  const facets = alertFacets(report);
  const detail = report.detail ?? undefined;
  const raised = detail?.exceptions?.at(-1);
  const frames = detail ? detailFrames(detail) : [];
  return {
    errorType: raised?.type ?? report.error_class,
    errorValue: raised?.value ?? report.message,
    message: report.message,
    frames:
      frames.length > 0
        ? frames.map((frame) => ({
            ...(frame.function === undefined ? {} : { function: frame.function }),
            ...(frame.file === undefined ? {} : { absPath: frame.file }),
            ...(frame.module === undefined ? {} : { module: frame.module }),
          }))
        : backtraceFrames(report.backtrace),
    release: facets.release,
    environment: facets.environment,
    tags: facets.tags,
  };
}
