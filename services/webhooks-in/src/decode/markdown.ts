/**
 * Small builders for the markdown the decoders write. What they write is stored as the message
 * body and rendered (escaped and sanitized) by the one message renderer like any typed message, so
 * nothing here needs to be safe HTML: only readable markdown.
 */

/** Brackets and backslashes would end or bend a link label; `*_~` would open emphasis. */
export function escapeLabel(text: string): string {
  return text.replace(/[\\[\]]/g, (c) => `\\${c}`).replace(/\s*\n\s*/g, ' ');
}

/** `[label](<url>)`: the angle-bracket destination keeps `)`, spaces and `|` inside the URL. */
export function link(label: string, url: string): string {
  const target = url.trim();
  if (!target || /[<>\n]/.test(target)) return label;
  return `[${escapeLabel(label || target)}](<${target}>)`;
}

/** Each line behind `> `: the side bar attachments and embeds are drawn with. */
export function quote(text: string): string {
  return text
    .split('\n')
    .map((line) => (line ? `> ${line}` : '>'))
    .join('\n');
}

/**
 * An attachment's, embed's or card's content behind a side bar, its colour's mark first (inside
 * a leading heading, where `🟥 ### Title` would not be one).
 */
export function markedQuote(mark: string, inside: string): string {
  if (!mark) return quote(inside);
  const heading = /^#{1,6} /.exec(inside);
  return quote(
    heading ? `${heading[0]}${mark} ${inside.slice(heading[0].length)}` : `${mark} ${inside}`,
  );
}

/**
 * `**text**` with the text's own leading and trailing spaces kept outside the markers: rich text
 * runs often end in a space (`"Hello "` then a link), and `**Hello **` is no emphasis in markdown.
 */
export function emphasize(value: string, marker: string): string {
  const match = /^(\s*)([\s\S]*?)(\s*)$/.exec(value);
  if (!match?.[2]) return value;
  return `${match[1]}${marker}${match[2]}${marker}${match[3]}`;
}

/** Non-empty parts as paragraphs. */
export function paragraphs(parts: readonly (string | undefined | false)[]): string {
  return parts
    .filter((part): part is string => typeof part === 'string' && part.trim() !== '')
    .map((part) => part.trim())
    .join('\n\n');
}

/** `- **Name**: value` per field: a small list that reads the same on a phone and in the API. */
export function fieldList(fields: readonly { name: string; value: string }[]): string {
  return fields
    .filter((field) => field.name.trim() || field.value.trim())
    .map((field) => {
      const value = field.value.trim().replace(/\n+/g, ' · ');
      // Adaptive Cards' FactSet titles often end in a colon (`Board:`); the list adds its own.
      const name = field.name.trim().replace(/\n+/g, ' ').replace(/\s*:$/, '');
      return name ? `- **${name}**: ${value}` : `- ${value}`;
    })
    .join('\n');
}

/**
 * A colour as a mark that survives markdown: one of the coloured squares, picked by hue. Slack's
 * `good`/`warning`/`danger`, `#rgb`/`#rrggbb` (Slack, Teams) and Discord's integer colours.
 */
export function colorMark(color: string | number | undefined): string {
  if (color === undefined || color === '') return '';
  if (typeof color === 'string') {
    const named: Record<string, string> = { good: '🟩', warning: '🟨', danger: '🟥' };
    const known = named[color.trim().toLowerCase()];
    if (known) return known;
  }
  const hex =
    typeof color === 'number'
      ? color.toString(16).padStart(6, '0')
      : color
          .trim()
          .replace(/^#/, '')
          .replace(/^([0-9a-f])([0-9a-f])([0-9a-f])$/i, '$1$1$2$2$3$3');
  if (!/^[0-9a-f]{6}$/i.test(hex)) return '';
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255) as [
    number,
    number,
    number,
  ];
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const lightness = (max + min) / 2;
  if (max - min < 0.12) return lightness > 0.5 ? '⬜' : '⬛';
  let hue: number;
  if (max === r) hue = (((g - b) / (max - min)) % 6) * 60;
  else if (max === g) hue = ((b - r) / (max - min) + 2) * 60;
  else hue = ((r - g) / (max - min) + 4) * 60;
  if (hue < 0) hue += 360;
  if (hue < 15 || hue >= 345) return '🟥';
  if (hue < 45) return lightness < 0.35 ? '🟫' : '🟧';
  if (hue < 70) return '🟨';
  if (hue < 170) return '🟩';
  if (hue < 260) return '🟦';
  return '🟪';
}

/** A Unix timestamp (seconds, as Slack and Discord send) as `2026-11-25 17:00 UTC`. */
export function formatTime(value: number | string | undefined): string {
  if (value === undefined || value === '') return '';
  const date =
    typeof value === 'number' || /^\d+(\.\d+)?$/.test(value)
      ? new Date(Number(value) * 1000)
      : new Date(value);
  if (Number.isNaN(date.getTime())) return '';
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
