import type { ErrorSource } from '@ferry/db';
import { detailTags, type OccurrenceDetail } from './detail.js';

/**
 * What an alert rule's filters look at in one occurrence (issue 43, part 7). Level and tags are
 * read as the search box reads them: a Sentry event's are its own; a native `/ingest/errors`
 * report's level is `error` and its tags are the scalar entries of `context.tags`.
 */
export interface AlertFacets {
  environment: string | null;
  source: ErrorSource;
  level: string;
  release: string | null;
  tags: Readonly<Record<string, string>>;
}

/** The occurrence fields the facets come from (a writer's report, or a stored occurrence). */
export interface FacetSource {
  environment: string | null;
  source: ErrorSource;
  app_version: string | null;
  context: Record<string, unknown>;
  detail?: OccurrenceDetail | null | undefined;
}

function contextTags(context: Record<string, unknown>): Record<string, string> {
  const tags = context.tags;
  if (!tags || typeof tags !== 'object' || Array.isArray(tags)) return {};
  return Object.fromEntries(
    Object.entries(tags as Record<string, unknown>).flatMap(([key, value]) =>
      typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
        ? [[key, String(value)]]
        : [],
    ),
  );
}

/**
 * An occurrence's release: a Sentry event's `release` (its detail), else the report's
 * `app_version`. The one definition the writer's first/last release and alert filters read.
 */
export function occurrenceRelease(
  report: Pick<FacetSource, 'app_version' | 'detail'>,
): string | null {
  return report.detail?.release ?? report.app_version;
}

export function alertFacets(report: FacetSource): AlertFacets {
  const detail = report.detail ?? undefined;
  return {
    environment: report.environment,
    source: report.source,
    level: (detail?.level ?? 'error').toLowerCase(),
    release: occurrenceRelease(report),
    tags: detail ? (detailTags(detail) ?? {}) : contextTags(report.context),
  };
}

/** A rule's filters: null lets every value through; within a list, any one matches. */
export interface AlertFilters {
  environments: readonly string[] | null;
  sources: readonly string[] | null;
  levels: readonly string[] | null;
  /** `*` globs. */
  releases: readonly string[] | null;
  /** `key=value`, the value a `*` glob; every one must match. */
  tags: readonly string[] | null;
}

const globCache = new Map<string, RegExp>();

/** `*` stands for any run of characters; everything else is literal; the whole value matches. */
export function globMatches(glob: string, value: string): boolean {
  let pattern = globCache.get(glob);
  if (!pattern) {
    const body = glob
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    pattern = new RegExp(`^${body}$`, 's');
    if (globCache.size > 1_000) globCache.clear();
    globCache.set(glob, pattern);
  }
  return pattern.test(value);
}

/** A `key=value` filter split at its first `=`. */
export function splitTagFilter(filter: string): { key: string; value: string } {
  const at = filter.indexOf('=');
  return { key: filter.slice(0, at), value: filter.slice(at + 1) };
}

export function facetsMatch(filters: AlertFilters, facets: AlertFacets): boolean {
  if (filters.environments && !filters.environments.includes(facets.environment ?? '')) {
    return false;
  }
  if (filters.sources && !filters.sources.includes(facets.source)) return false;
  if (filters.levels && !filters.levels.includes(facets.level)) return false;
  if (filters.releases) {
    const release = facets.release;
    if (release === null || !filters.releases.some((glob) => globMatches(glob, release))) {
      return false;
    }
  }
  for (const filter of filters.tags ?? []) {
    const { key, value } = splitTagFilter(filter);
    const actual = facets.tags[key];
    if (actual === undefined || !globMatches(value, actual)) return false;
  }
  return true;
}

/** How many of a group's new occurrences the rule's filters let through. */
export function occurrencesMatching(filters: AlertFilters, facets: readonly AlertFacets[]): number {
  let matching = 0;
  for (const one of facets) if (facetsMatch(filters, one)) matching += 1;
  return matching;
}
