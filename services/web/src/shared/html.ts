/**
 * Auto-escaping HTML templates: every interpolated value is escaped unless it is already SafeHtml
 * (the output of another `html` template or an explicit `raw` of sanitized markup).
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

const SPECIAL = /[&<>"'`]/;
const SPECIALS = /[&<>"'`]/g;

export function escapeHtml(value: string): string {
  // Most values (ids, names, dates) have nothing to escape: no replace, no new string.
  if (!SPECIAL.test(value)) return value;
  return value.replace(SPECIALS, (c) => ESCAPES[c] ?? c);
}

type Interpolation = SafeHtml | string | number | boolean | null | undefined | Interpolation[];

function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? '');
  return new SafeHtml(out);
}

/** Marks already-safe markup (sanitized markdown, our own constants). Never pass user input here. */
export function raw(markup: string): SafeHtml {
  return new SafeHtml(markup);
}
