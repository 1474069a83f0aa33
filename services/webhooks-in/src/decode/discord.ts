import { z } from 'zod';
import { emojify } from './emoji.js';
import { escapeMarkdown, listOf, num, text } from './lenient.js';
import { colorMark, fieldList, formatTime, link, markedQuote, paragraphs } from './markdown.js';

/**
 * Discord's Execute Webhook body (https://discord.com/developers/docs/resources/webhook#execute-webhook):
 * `content` (Discord markdown: close enough to ours), `username`, `avatar_url` and up to 10
 * `embeds` (https://discord.com/developers/docs/resources/message#embed-object): author, title +
 * url, description, fields, image and thumbnail as links, footer and timestamp, colour as a mark.
 */

const embed = z.object({
  title: text,
  url: text,
  description: text,
  color: num,
  timestamp: text,
  author: z.object({ name: text, url: text }).optional().catch(undefined),
  footer: z.object({ text: text }).optional().catch(undefined),
  image: z.object({ url: text }).optional().catch(undefined),
  thumbnail: z.object({ url: text }).optional().catch(undefined),
  fields: listOf(z.object({ name: text, value: text })),
});

/**
 * Discord-only syntax made readable: `<:name:id>` custom emoji -> `:name:`, `<t:1700000000:f>`
 * timestamps -> a UTC time, `<@123>`/`<@&123>`/`<#123>` mentions -> `@123`, `#123`.
 */
export function discordMarkdown(value: string): string {
  return emojify(
    value
      .replace(/<a?:(\w+):\d+>/g, ':$1:')
      .replace(/<t:(\d+)(?::[tTdDfFR])?>/g, (_m, seconds: string) => formatTime(Number(seconds)))
      .replace(/<@[!&]?(\d+)>/g, '@$1')
      .replace(/<#(\d+)>/g, '#$1'),
  );
}

function renderEmbed(value: z.infer<typeof embed>): string {
  const author = value.author?.name
    ? value.author.url
      ? link(value.author.name, value.author.url)
      : escapeMarkdown(value.author.name)
    : '';
  const title = value.title
    ? `**${value.url ? link(value.title, value.url) : discordMarkdown(value.title)}**`
    : '';
  const fields = fieldList(
    value.fields.map((field) => ({
      name: discordMarkdown(field.name ?? ''),
      value: discordMarkdown(field.value ?? ''),
    })),
  );
  const images = [
    value.image?.url ? link('image', value.image.url) : '',
    value.thumbnail?.url ? link('thumbnail', value.thumbnail.url) : '',
  ]
    .filter(Boolean)
    .join(' · ');
  const footer = [
    value.footer?.text ? discordMarkdown(escapeMarkdown(value.footer.text)) : '',
    value.timestamp ? formatTime(value.timestamp) : '',
  ]
    .filter(Boolean)
    .join(' · ');
  const inside = paragraphs([
    author,
    title,
    value.description ? discordMarkdown(value.description) : '',
    fields,
    images,
    footer ? `_${footer}_` : '',
  ]);
  if (!inside) return '';
  const mark = colorMark(value.color);
  return markedQuote(mark, inside);
}

export function renderDiscordMessage(payload: { content?: unknown; embeds?: unknown }): string {
  const content = typeof payload.content === 'string' ? discordMarkdown(payload.content) : '';
  const embeds = listOf(embed).parse(payload.embeds).slice(0, 10).map(renderEmbed);
  return paragraphs([content, ...embeds]);
}
