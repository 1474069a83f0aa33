import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { z } from 'zod';

/**
 * `:shortcode:` -> Unicode, from emoji-datasource (iamcal/emoji-data): the table Slack's own
 * shortcodes come from (`:tada:`, `:+1:`, `:white_check_mark:`, `:thumbsup::skin-tone-3:`), and
 * the one Mattermost's follow. Loaded on the first shortcode seen, so a post without one (and a
 * process that never sees one) pays nothing for its 1.3 MB.
 */

const entrySchema = z.object({
  unified: z.string(),
  short_names: z.array(z.string()),
  skin_variations: z.record(z.string(), z.object({ unified: z.string() })).optional(),
});

interface Emoji {
  char: string;
  /** Skin tone (`1F3FB`..`1F3FF`) -> the toned character. */
  tones: Map<string, string>;
}

/** `:skin-tone-2:` .. `:skin-tone-6:`, as Slack writes them after a shortcode. */
const TONE_CODES: Record<string, string> = {
  '2': '1F3FB',
  '3': '1F3FC',
  '4': '1F3FD',
  '5': '1F3FE',
  '6': '1F3FF',
};

const fromCodes = (unified: string): string =>
  String.fromCodePoint(...unified.split('-').map((hex) => parseInt(hex, 16)));

let table: Map<string, Emoji> | undefined;

function emojiTable(): Map<string, Emoji> {
  if (table) return table;
  const file = createRequire(import.meta.url).resolve('emoji-datasource/emoji.json');
  const entries = z.array(entrySchema).parse(JSON.parse(readFileSync(file, 'utf8')));
  table = new Map();
  for (const entry of entries) {
    const tones = new Map<string, string>();
    for (const [tone, variation] of Object.entries(entry.skin_variations ?? {})) {
      // Single-tone variations only ("1F3FB"); two-person ones ("1F3FB-1F3FC") have no shortcode.
      if (!tone.includes('-')) tones.set(tone, fromCodes(variation.unified));
    }
    const emoji = { char: fromCodes(entry.unified), tones };
    for (const name of entry.short_names) table.set(name, emoji);
  }
  return table;
}

/** `:name:` optionally followed by `:skin-tone-N:`; names are letters, digits, `_+-'`. */
const SHORTCODE = /:([a-z0-9_+'-]+):(?::skin-tone-([2-6]):)?/gi;

/** Replaces the shortcodes the table knows; unknown ones (custom emoji) stay as written. */
export function emojify(text: string): string {
  if (!text.includes(':')) return text;
  return text.replace(SHORTCODE, (match, name: string, tone: string | undefined) => {
    const emoji = emojiTable().get(name.toLowerCase());
    if (!emoji) return match;
    const toneCode = tone ? TONE_CODES[tone] : undefined;
    return (toneCode && emoji.tones.get(toneCode)) || emoji.char;
  });
}

/** The character of one shortcode (`tada` or `:tada:`), for Slack's icon_emoji; undefined if unknown. */
export function emojiChar(shortcode: string): string | undefined {
  const name = shortcode.trim().replace(/^:|:$/g, '');
  if (!/^[a-z0-9_+'-]+$/i.test(name)) return undefined;
  return emojiTable().get(name.toLowerCase())?.char;
}
