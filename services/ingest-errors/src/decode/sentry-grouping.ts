import type { GroupingHint } from '../fingerprint.js';
import { eventFrames, frameLine, type Frame, type SentryEvent } from './sentry-event.js';

/**
 * What a Sentry event groups by (DESIGN.md, fourth wave; issue 41): SPEC.md's "top frame" is the
 * frame that says where the app went wrong, not where the SDK caught it.
 * - the innermost frame the SDK marked `in_app`, when it marked any;
 * - else the innermost frame that is not the SDK's own (a module or path under sentry or raven),
 *   so `Sentry.capture_message` from two methods makes two groups, not one "sentry/hub.rb";
 * - else none, and the message decides as SPEC.md says: for a log line, its template
 *   (`order %s failed`), so one line groups across its params.
 * /ingest/errors has no hint and keeps SPEC.md's rule exactly.
 */

/** A module of the SDK itself (sentry_sdk.hub, sentry::hub, raven.base, sentry-go's package). */
const SDK_MODULE = /^(?:sentry_sdk|sentry|raven)(?:[.:/]|$)|^github\.com\/getsentry\//i;

/** A file under the SDK's folder (dist-packages/sentry_sdk/, gems' sentry/, @sentry/, sentry-go@). */
const SDK_PATH =
  /(?:^|[/\\])(?:sentry[-_]sdk|sentry[-_]ruby(?:-core)?|sentry[-_]raven|raven[-_]ruby|sentry|raven|@sentry|sentry-go)(?:[/\\@]|-\d)/i;

function isSdkFrame(frame: Frame): boolean {
  if (frame.module !== undefined && SDK_MODULE.test(frame.module)) return true;
  return [frame.abs_path, frame.filename].some((path) => path !== undefined && SDK_PATH.test(path));
}

export function sentryGrouping(event: SentryEvent): GroupingHint {
  // Oldest first, as sent. The report's backtrace is these frames' lines innermost first, with
  // blank lines skipped (coerceReport), so the index below counts exactly the lines it keeps. A
  // chosen frame past the backtrace's cap (30 lines) groups by the message instead.
  const frames = (eventFrames(event) ?? []).filter(
    (frame): frame is Frame => frame !== null && frameLine(frame).trim() !== '',
  );
  const anyInApp = frames.some((frame) => frame.in_app === true);
  const chosen = frames.findLastIndex((frame) =>
    anyInApp ? frame.in_app === true : !isSdkFrame(frame),
  );
  const raised = (event.exception ?? []).some((value) => value !== null);
  const template = raised ? undefined : event.logentry?.message;
  return {
    frame: chosen < 0 ? null : frames.length - 1 - chosen,
    ...(template !== undefined && { message: template }),
  };
}
