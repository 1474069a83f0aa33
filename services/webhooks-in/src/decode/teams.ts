import { z } from 'zod';
import { emojify } from './emoji.js';
import { escapeMarkdown, isObject, listOf, text } from './lenient.js';
import { colorMark, emphasize, fieldList, link, markedQuote, paragraphs } from './markdown.js';

/**
 * Microsoft Teams: the connector MessageCard
 * (https://learn.microsoft.com/en-us/outlook/actionable-messages/message-card-reference) and
 * Adaptive Cards (https://adaptivecards.io/explorer/), bare or wrapped the way Workflows webhooks
 * take them (https://learn.microsoft.com/en-us/microsoftteams/platform/webhooks-and-connectors/how-to/connectors-using#send-adaptive-cards-using-an-incoming-webhook):
 * `{"type": "message", "attachments": [{"contentType": "application/vnd.microsoft.card.adaptive", "content": {...}}]}`.
 * Both carry markdown text already; what they lay out (facts, columns) becomes lists and paragraphs.
 */

const ADAPTIVE = 'application/vnd.microsoft.card.adaptive';

const fact = z.object({ name: text, title: text, value: text });

/** MessageCard actions: OpenUri (`targets[].uri`) and the older ViewAction (`target[]`). */
const cardAction = z.object({
  '@type': text,
  name: text,
  targets: listOf(z.object({ uri: text })),
  target: listOf(z.string()),
});

function actionLinks(values: unknown): string {
  return listOf(cardAction)
    .parse(values)
    .map((action) => {
      const uri = action.targets[0]?.uri ?? action.target[0];
      return uri ? link(action.name ?? uri, uri) : '';
    })
    .filter(Boolean)
    .join(' · ');
}

const section = z.object({
  title: text,
  activityTitle: text,
  activitySubtitle: text,
  activityText: text,
  text: text,
  facts: listOf(fact),
  potentialAction: z.unknown().optional(),
});

const messageCard = z.object({
  title: text,
  summary: text,
  text: text,
  themeColor: text,
  sections: listOf(section),
  potentialAction: z.unknown().optional(),
});

const md = (value: string | undefined): string => (value ? emojify(value) : '');

function facts(values: z.infer<typeof fact>[]): string {
  return fieldList(
    values.map((item) => ({ name: md(item.name ?? item.title), value: md(item.value) })),
  );
}

export function renderMessageCard(payload: unknown): string {
  const parsed = messageCard.safeParse(payload);
  if (!parsed.success) return '';
  const card = parsed.data;
  const sections = card.sections.map((item) =>
    paragraphs([
      item.title ? `**${md(item.title)}**` : '',
      item.activityTitle ? `**${md(item.activityTitle)}**` : '',
      md(item.activitySubtitle),
      md(item.activityText),
      md(item.text),
      facts(item.facts),
      actionLinks(item.potentialAction),
    ]),
  );
  const inside = paragraphs([
    card.title ? `### ${md(card.title).replace(/\n/g, ' ')}` : '',
    md(card.text),
    ...sections,
    actionLinks(card.potentialAction),
  ]);
  const body = inside || md(card.summary);
  const mark = colorMark(card.themeColor);
  return body && mark ? markedQuote(mark, body) : body;
}

const adaptiveElement = z.object({
  type: text,
  text: text,
  weight: text,
  size: text,
  title: text,
  url: text,
  altText: text,
  facts: listOf(fact),
  inlines: z.array(z.unknown()).optional().catch(undefined),
  items: z.array(z.unknown()).optional().catch(undefined),
  columns: z.array(z.unknown()).optional().catch(undefined),
  images: z.array(z.unknown()).optional().catch(undefined),
  actions: z.array(z.unknown()).optional().catch(undefined),
  card: z.unknown().optional(),
  italic: z.unknown().optional(),
  strikethrough: z.unknown().optional(),
});

/** Adaptive Card nesting is bounded here, so a hostile payload cannot recurse without end. */
const MAX_DEPTH = 8;

function adaptiveElements(values: unknown, depth: number): string {
  if (depth > MAX_DEPTH) return '';
  return paragraphs(
    listOf(adaptiveElement)
      .parse(values)
      .map((item) => adaptiveElementText(item, depth)),
  );
}

function adaptiveActions(values: unknown, depth: number): string {
  const parts = listOf(adaptiveElement)
    .parse(values)
    .map((action) => {
      if (action.type === 'Action.OpenUrl' && action.url)
        return link(action.title ?? action.url, action.url);
      if (action.type === 'Action.ShowCard' && isObject(action.card))
        return adaptiveCard(action.card, depth + 1);
      return '';
    });
  return parts.filter(Boolean).join(' · ');
}

function adaptiveElementText(item: z.infer<typeof adaptiveElement>, depth: number): string {
  switch (item.type) {
    case 'TextBlock': {
      const value = md(item.text);
      if (!value) return '';
      if (item.size === 'Large' || item.size === 'ExtraLarge')
        return `### ${value.replace(/\n/g, ' ')}`;
      return item.weight === 'Bolder' && !value.includes('\n') ? `**${value}**` : value;
    }
    case 'RichTextBlock':
      return listOf(adaptiveElement)
        .parse(item.inlines)
        .map((run) => {
          let value = escapeMarkdown(run.text ?? '');
          if (!value.trim()) return value;
          if (run.weight === 'Bolder') value = emphasize(value, '**');
          if (run.italic === true) value = emphasize(value, '_');
          if (run.strikethrough === true) value = emphasize(value, '~~');
          return value;
        })
        .join('');
    case 'FactSet':
      return facts(item.facts);
    case 'Image':
      return item.url ? link(item.altText ?? 'image', item.url) : '';
    case 'ImageSet':
      return adaptiveElements(item.images, depth + 1);
    case 'Container':
      return adaptiveElements(item.items, depth + 1);
    case 'ColumnSet':
      return paragraphs(
        listOf(adaptiveElement)
          .parse(item.columns)
          .map((column) => adaptiveElements(column.items, depth + 1)),
      );
    case 'ActionSet':
      return adaptiveActions(item.actions, depth);
    default:
      return '';
  }
}

function adaptiveCard(card: Record<string, unknown>, depth = 0): string {
  return paragraphs([adaptiveElements(card.body, depth), adaptiveActions(card.actions, depth)]);
}

/** Is this a Teams payload? MessageCard, a bare Adaptive Card, or a message wrapping cards. */
export function isTeamsPayload(payload: Record<string, unknown>): boolean {
  return (
    payload['@type'] === 'MessageCard' ||
    payload.type === 'AdaptiveCard' ||
    (payload.type === 'message' && Array.isArray(payload.attachments))
  );
}

export function renderTeamsMessage(payload: Record<string, unknown>): string {
  if (payload['@type'] === 'MessageCard') return renderMessageCard(payload);
  if (payload.type === 'AdaptiveCard') return adaptiveCard(payload);
  const cards = (payload.attachments as unknown[]).map((item) => {
    if (!isObject(item) || !isObject(item.content)) return '';
    if (item.contentType === ADAPTIVE) return adaptiveCard(item.content);
    if (item.content['@type'] === 'MessageCard') return renderMessageCard(item.content);
    return '';
  });
  return paragraphs([typeof payload.text === 'string' ? md(payload.text) : '', ...cards]);
}
