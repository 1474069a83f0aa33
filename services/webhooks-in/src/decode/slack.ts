import { z } from 'zod';
import { emojify } from './emoji.js';
import { escapeMarkdown, listOf, text, textOrNumber } from './lenient.js';
import {
  colorMark,
  emphasize,
  fieldList,
  formatTime,
  link,
  markedQuote,
  paragraphs,
  quote,
} from './markdown.js';
import { mrkdwnToMarkdown, type MrkdwnOptions } from './mrkdwn.js';

/**
 * Slack's incoming-webhook payload (https://docs.slack.dev/messaging/sending-messages-using-incoming-webhooks):
 * `text` (mrkdwn), `blocks` (https://docs.slack.dev/reference/block-kit/blocks) and the legacy
 * `attachments` (https://docs.slack.dev/messaging/formatting-message-text#when-to-use-attachments),
 * rendered to markdown. Mattermost sends the same shape with markdown text (mattermost.ts).
 */

const textObject = z.object({ type: text, text: text, emoji: z.unknown().optional() });
type TextObject = z.infer<typeof textObject>;

/** A Block Kit text object: mrkdwn converted, plain_text escaped (its `:emoji:` still shown). */
function textOf(value: TextObject | undefined, options: MrkdwnOptions): string {
  if (!value?.text) return '';
  return value.type === 'plain_text'
    ? emojify(escapeMarkdown(value.text))
    : mrkdwnToMarkdown(value.text, options);
}

const element = z.object({
  type: text,
  text: z.union([z.string(), textObject]).optional().catch(undefined),
  url: text,
  image_url: text,
  alt_text: text,
  name: text,
  unicode: text,
  user_id: text,
  channel_id: text,
  usergroup_id: text,
  range: text,
  timestamp: textOrNumber,
  fallback: text,
  // A text leaf's style is an object (`{"bold": true}`); a rich_text_list's is `bullet`/`ordered`.
  style: z
    .union([
      z.enum(['bullet', 'ordered']),
      z.object({
        bold: z.unknown().optional(),
        italic: z.unknown().optional(),
        strike: z.unknown().optional(),
        code: z.unknown().optional(),
      }),
    ])
    .optional()
    .catch(undefined),
  elements: z.array(z.unknown()).optional().catch(undefined),
  indent: textOrNumber,
  border: textOrNumber,
});
type Element = z.infer<typeof element>;

const block = z.object({
  type: text,
  text: z.union([z.string(), textObject]).optional().catch(undefined),
  fields: listOf(textObject),
  accessory: element.optional().catch(undefined),
  elements: z.array(z.unknown()).optional().catch(undefined),
  image_url: text,
  alt_text: text,
  title: textObject.optional().catch(undefined),
  title_url: text,
});

function elements(values: unknown[] | undefined): Element[] {
  return listOf(element).parse(values);
}

/** An accessory or an actions element: a button with a URL or an image becomes a link. */
function elementLink(value: Element, options: MrkdwnOptions): string {
  const label = typeof value.text === 'string' ? value.text : textOf(value.text, options);
  if (value.type === 'button' && value.url) return link(label || value.url, value.url);
  if (value.type === 'image' && value.image_url)
    return link(value.alt_text || 'image', value.image_url);
  return '';
}

/** One rich_text leaf: text with its style, a link, an emoji, a mention. */
function richLeaf(value: Element): string {
  switch (value.type) {
    case 'text': {
      const raw = typeof value.text === 'string' ? value.text : '';
      const style = typeof value.style === 'object' ? value.style : {};
      if (style.code) return `\`${raw.replace(/`/g, 'ˋ')}\``;
      let out = escapeMarkdown(raw);
      if (!out.trim()) return out;
      if (style.bold) out = emphasize(out, '**');
      if (style.italic) out = emphasize(out, '_');
      if (style.strike) out = emphasize(out, '~~');
      return out;
    }
    case 'link':
      return link(
        typeof value.text === 'string' && value.text ? value.text : (value.url ?? ''),
        value.url ?? '',
      );
    case 'emoji':
      return value.unicode
        ? String.fromCodePoint(...value.unicode.split('-').map((hex) => parseInt(hex, 16)))
        : emojify(`:${value.name ?? ''}:`);
    case 'user':
      return `@${value.user_id ?? 'someone'}`;
    case 'usergroup':
      return `@${value.usergroup_id ?? 'group'}`;
    case 'channel':
      return `#${value.channel_id ?? 'channel'}`;
    case 'broadcast':
      return `@${value.range ?? 'here'}`;
    case 'date':
      return value.fallback ?? formatTime(value.timestamp);
    default:
      return '';
  }
}

/** A rich_text block's sections, lists, code and quotes. */
function richText(values: unknown[] | undefined): string {
  const parts: string[] = [];
  for (const part of elements(values)) {
    const leaves = (items: unknown[] | undefined) => elements(items).map(richLeaf).join('');
    switch (part.type) {
      case 'rich_text_section':
        parts.push(leaves(part.elements));
        break;
      case 'rich_text_list': {
        const ordered = part.style === 'ordered';
        const indent = '  '.repeat(Number(part.indent ?? 0) || 0);
        parts.push(
          elements(part.elements)
            .map((item, i) => `${indent}${ordered ? `${i + 1}.` : '-'} ${leaves(item.elements)}`)
            .join('\n'),
        );
        break;
      }
      case 'rich_text_preformatted': {
        const code = elements(part.elements)
          .map((leaf) => (typeof leaf.text === 'string' ? leaf.text : (leaf.url ?? '')))
          .join('');
        parts.push(`\`\`\`\n${code.replace(/```/g, 'ˋˋˋ')}\n\`\`\``);
        break;
      }
      case 'rich_text_quote':
        parts.push(quote(leaves(part.elements)));
        break;
      default:
        break;
    }
  }
  return paragraphs(parts);
}

/** One Block Kit block as markdown; blocks we cannot show (inputs, selects) render to nothing. */
function renderBlock(value: z.infer<typeof block>, options: MrkdwnOptions): string {
  const textValue = typeof value.text === 'string' ? value.text : textOf(value.text, options);
  switch (value.type) {
    case 'section': {
      const fields = value.fields.map((field) => textOf(field, options));
      const accessory = value.accessory ? elementLink(value.accessory, options) : '';
      return paragraphs([
        textValue,
        fields.length
          ? fields.map((field) => `- ${field.replace(/\s*\n\s*/g, ' ')}`).join('\n')
          : '',
        accessory,
      ]);
    }
    case 'header':
      return textValue ? `### ${textValue.replace(/\n/g, ' ')}` : '';
    case 'markdown':
      // Slack's markdown block carries standard markdown.
      return typeof value.text === 'string' ? emojify(value.text) : '';
    case 'context':
      // Context elements are images and text objects (mrkdwn or plain_text), shown small: italic.
      return elements(value.elements)
        .map((item) =>
          item.type === 'image'
            ? elementLink(item, options)
            : textOf(
                {
                  type: item.type,
                  text: typeof item.text === 'string' ? item.text : item.text?.text,
                  emoji: undefined,
                },
                options,
              ),
        )
        .filter(Boolean)
        .map((part) => `_${part}_`)
        .join(' · ');
    case 'divider':
      return '---';
    case 'image':
      return value.image_url
        ? link(textOf(value.title, options) || value.alt_text || 'image', value.image_url)
        : '';
    case 'video':
      return value.title_url ? link(textOf(value.title, options) || 'video', value.title_url) : '';
    case 'rich_text':
      return richText(value.elements);
    case 'actions':
      return elements(value.elements)
        .map((item) => elementLink(item, options))
        .filter(Boolean)
        .join(' · ');
    default:
      return '';
  }
}

export function renderBlocks(values: unknown, options: MrkdwnOptions = {}): string {
  const blocks = listOf(block).parse(values);
  // A divider's `---` right under a line of text would make that line a heading: paragraphs apart.
  return paragraphs(blocks.map((value) => renderBlock(value, options)));
}

const attachmentField = z.object({ title: text, value: text });

const attachment = z.object({
  fallback: text,
  color: text,
  pretext: text,
  author_name: text,
  author_link: text,
  title: text,
  title_link: text,
  text: text,
  fields: listOf(attachmentField),
  image_url: text,
  thumb_url: text,
  footer: text,
  ts: textOrNumber,
  blocks: z.array(z.unknown()).optional().catch(undefined),
  actions: listOf(z.object({ type: text, text: text, url: text, name: text })),
  // Mattermost: https://developers.mattermost.com/integrate/reference/message-attachments/
  title_url: text,
});

/** One legacy attachment: pretext above, the rest behind a side bar led by its colour's mark. */
export function renderAttachment(value: unknown, options: MrkdwnOptions = {}): string {
  const parsed = attachment.safeParse(value);
  if (!parsed.success) return '';
  const a = parsed.data;
  const md = (value?: string) => (value ? mrkdwnToMarkdown(value, options) : '');
  const author = a.author_name
    ? a.author_link
      ? link(a.author_name, a.author_link)
      : escapeMarkdown(a.author_name)
    : '';
  const titleLink = a.title_link ?? a.title_url;
  const title = a.title ? `**${titleLink ? link(a.title, titleLink) : md(a.title)}**` : '';
  const fields = fieldList(
    a.fields.map((field) => ({ name: md(field.title), value: md(field.value) })),
  );
  const actions = a.actions
    .filter((action) => action.url)
    .map((action) => link(action.text ?? action.name ?? action.url ?? '', action.url ?? ''))
    .join(' · ');
  const images = [
    a.image_url ? link('image', a.image_url) : '',
    a.thumb_url ? link('thumbnail', a.thumb_url) : '',
  ]
    .filter(Boolean)
    .join(' · ');
  const footer = [md(a.footer), formatTime(a.ts)].filter(Boolean).join(' · ');
  let inside = paragraphs([
    author,
    title,
    md(a.text),
    fields,
    a.blocks ? renderBlocks(a.blocks, options) : '',
    images,
    actions,
    footer ? `_${footer}_` : '',
  ]);
  if (!inside && a.fallback) inside = md(a.fallback);
  if (!inside) return md(a.pretext);
  const mark = colorMark(a.color);
  return paragraphs([md(a.pretext), markedQuote(mark, inside)]);
}

export function renderAttachments(values: unknown, options: MrkdwnOptions = {}): string {
  return paragraphs(
    (Array.isArray(values) ? values : []).map((value) => renderAttachment(value, options)),
  );
}

/**
 * The whole message. With blocks, Slack shows the blocks and keeps `text` for notifications
 * only; the text is shown here when the blocks render to nothing. Attachments follow.
 */
export function renderSlackMessage(
  payload: { text?: unknown; blocks?: unknown; attachments?: unknown },
  options: MrkdwnOptions = {},
): string {
  const textValue = typeof payload.text === 'string' ? mrkdwnToMarkdown(payload.text, options) : '';
  const blocks = payload.blocks === undefined ? '' : renderBlocks(payload.blocks, options);
  return paragraphs([blocks || textValue, renderAttachments(payload.attachments, options)]);
}
