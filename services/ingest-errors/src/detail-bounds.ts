import { DETAIL_LIMITS, type DetailFrame, type OccurrenceDetail } from '@ferry/workspace';

/**
 * The detail's total cap (DETAIL_LIMITS.totalChars of JSON, about 64 KB). Each part is already cut
 * to its own cap; when the sum is still too large, the least useful parts go first, each cut named
 * in `truncated`: the oldest breadcrumbs, then request headers, contexts, the code around frames
 * (outermost stacks first), the causes of the raised exception, and last the outer frames.
 */

const size = (detail: OccurrenceDetail): number => JSON.stringify(detail).length;

function withoutCode(frame: DetailFrame): DetailFrame {
  const { pre_context: _pre, post_context: _post, context_line: _line, ...rest } = frame;
  return rest;
}

function note(detail: OccurrenceDetail, what: string): void {
  detail.truncated = [...(detail.truncated ?? []), what];
}

export function boundDetail(input: OccurrenceDetail): OccurrenceDetail {
  const cap = DETAIL_LIMITS.totalChars;
  if (size(input) <= cap) return input;
  const detail: OccurrenceDetail = structuredClone(input);

  // The oldest breadcrumbs first, a quarter at a time: the ones nearest the error stay.
  const crumbs = detail.breadcrumbs?.length ?? 0;
  while (detail.breadcrumbs?.length && size(detail) > cap) {
    detail.breadcrumbs = detail.breadcrumbs.slice(Math.ceil(detail.breadcrumbs.length / 4));
  }
  const dropped = crumbs - (detail.breadcrumbs?.length ?? 0);
  if (dropped > 0) note(detail, `breadcrumbs: ${dropped} oldest dropped (total cap)`);
  if (detail.breadcrumbs?.length === 0) delete detail.breadcrumbs;

  if (size(detail) > cap && detail.request?.headers) {
    delete detail.request.headers;
    note(detail, 'request headers dropped (total cap)');
  }
  if (size(detail) > cap && detail.contexts) {
    delete detail.contexts;
    note(detail, 'contexts dropped (total cap)');
  }
  if (size(detail) > cap) {
    detail.exceptions = detail.exceptions?.map((e) => ({
      ...e,
      frames: e.frames.map(withoutCode),
    }));
    if (detail.frames) detail.frames = detail.frames.map(withoutCode);
    note(detail, 'code context dropped (total cap)');
  }
  if (size(detail) > cap && (detail.exceptions?.length ?? 0) > 1) {
    note(detail, `exceptions: ${detail.exceptions!.length - 1} causes dropped (total cap)`);
    detail.exceptions = detail.exceptions!.slice(-1);
  }
  while (size(detail) > cap) {
    // Down to the innermost frames, halving; then whatever text is left is too long to keep.
    const stack = detail.exceptions?.[0]?.frames ?? detail.frames;
    if (!stack || stack.length <= 1) {
      for (const key of ['tags', 'user', 'request', 'breadcrumbs'] as const) delete detail[key];
      note(detail, 'tags, user and request dropped (total cap)');
      break;
    }
    const kept = stack.slice(0, Math.ceil(stack.length / 2));
    if (detail.exceptions?.[0]) detail.exceptions[0].frames = kept;
    else detail.frames = kept;
    note(detail, `frames: cut to the innermost ${kept.length} (total cap)`);
  }
  return detail;
}
