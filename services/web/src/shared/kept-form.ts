import type { Request, Response } from 'express';

/**
 * Post/Redirect/Get for a refused form: the POST answers 303 to the page that shows the form, and
 * the form's error and (non-secret) values ride along in the session for that one page view, like
 * a flash. Reloading the page then never re-posts, and the address is always one a GET can open
 * (a refused `…/members/mem_…/role` used to leave the browser on a URL that 404s).
 */

/** Twice the longest valid field (a message body), so a too-long value comes back as posted. */
const KEPT_VALUE_MAX = 40_000;

export type KeptValues = Record<string, string | string[]>;

export interface KeptForm {
  values: KeptValues;
  /** Field name to message, as `field()` shows them (linked with aria-describedby). */
  errors: Record<string, string>;
}

declare module 'express-session' {
  interface SessionData {
    /** The last refused form, for the next page view only (see pageContext). */
    keptForm?: KeptForm & { form: string };
  }
}

function clip(values: KeptValues): KeptValues {
  const clipped: KeptValues = {};
  for (const [key, value] of Object.entries(values)) {
    clipped[key] = Array.isArray(value)
      ? value.slice(0, 20).map((v) => v.slice(0, KEPT_VALUE_MAX))
      : value.slice(0, KEPT_VALUE_MAX);
  }
  return clipped;
}

/** Keeps the refused `form`'s values and errors for the page at `to`, and redirects there (303). */
export function redirectWithForm(
  req: Request,
  res: Response,
  to: string,
  form: string,
  kept: KeptForm,
): void {
  req.session.keptForm = { form, values: clip(kept.values), errors: kept.errors };
  res.redirect(303, to);
}

/** The refused `form`'s values and errors, once; undefined when another form (or none) was kept. */
export function takeForm(req: Request, form: string): KeptForm | undefined {
  const kept = req.session?.keptForm;
  if (!kept || kept.form !== form) return undefined;
  delete req.session.keptForm;
  return { values: kept.values, errors: kept.errors };
}

/** A kept text value (the first, if a field was posted twice). */
export function keptText(kept: KeptForm | undefined, name: string): string | undefined {
  const value = kept?.values[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The posted fields named, as text for keeping (a checkbox left unticked is absent). */
export function postedFields(body: unknown, names: readonly string[]): KeptValues {
  const kept: KeptValues = {};
  for (const name of names) {
    const value = (body as Record<string, unknown> | undefined)?.[name];
    if (typeof value === 'string') kept[name] = value;
  }
  return kept;
}

/** A posted field as text for keeping: only strings are kept, anything else reads as empty. */
export function postedText(body: unknown, name: string): string {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
}

/** A posted field as text: '' when absent or not text (a field sent twice is a list). */
export const formText = (value: unknown): string => (typeof value === 'string' ? value : '');

/** A posted field that may come many times (checkboxes of one name), as its texts. */
export const formTexts = (value: unknown): string[] =>
  Array.isArray(value)
    ? value.filter((item): item is string => typeof item === 'string')
    : typeof value === 'string'
      ? [value]
      : [];
