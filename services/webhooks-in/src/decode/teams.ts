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

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

function ordinal(day: number): string {
  const tens = day % 100;
  if (tens >= 11 && tens <= 13) return `${day}th`;
  return `${day}${['th', 'st', 'nd', 'rd'][day % 10] ?? 'th'}`;
}

/**
 * Adaptive Cards' `{{DATE(…)}}` and `{{TIME(…)}}`
 * (https://learn.microsoft.com/en-us/adaptive-cards/authoring-cards/text-features): a Teams client
 * shows them in the reader's time zone; a message here is the same text for everyone, so they are
 * written in UTC (TIME says so). The docs' rules hold: upper case, no spaces inside the braces or
 * parentheses, a strict RFC 3339 time with `Z` or an offset (upper case `T`); anything else
 * stays as sent, as a Teams client leaves it. DATE's formats: COMPACT (the default) `2/14/2017`, SHORT
 * `Tue, Feb 14th, 2017`, LONG `Tuesday, February 14th, 2017`; TIME: `6:00 AM UTC`.
 */
const DATE_TIME =
  /\{\{(DATE|TIME)\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2}))(?:, ?(COMPACT|SHORT|LONG))?\)\}\}/gi;

export function expandDateTime(value: string): string {
  return value.replace(DATE_TIME, (whole, name: string, stamp: string, given?: string) => {
    // The function's name is upper case as the docs require; the style is read in any case,
    // since Microsoft's own samples write `Short` (samples/v1.0/Scenarios/ActivityUpdate.json).
    const fn = name;
    const style = given?.toUpperCase();
    if (fn !== 'DATE' && fn !== 'TIME') return whole;
    const date = new Date(stamp);
    if (Number.isNaN(date.getTime())) return whole;
    if (fn === 'TIME') {
      if (style) return whole;
      const hours = date.getUTCHours();
      const minutes = String(date.getUTCMinutes()).padStart(2, '0');
      return `${hours % 12 || 12}:${minutes} ${hours < 12 ? 'AM' : 'PM'} UTC`;
    }
    const [year, month, day, weekday] = [
      date.getUTCFullYear(),
      date.getUTCMonth(),
      date.getUTCDate(),
      date.getUTCDay(),
    ];
    if (style === 'SHORT') {
      return `${WEEKDAYS[weekday]!.slice(0, 3)}, ${MONTHS[month]!.slice(0, 3)} ${ordinal(day)}, ${year}`;
    }
    if (style === 'LONG') return `${WEEKDAYS[weekday]}, ${MONTHS[month]} ${ordinal(day)}, ${year}`;
    return `${month + 1}/${day}/${year}`;
  });
}

const md = (value: string | undefined): string => (value ? emojify(expandDateTime(value)) : '');

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
  rows: z.array(z.unknown()).optional().catch(undefined),
  cells: z.array(z.unknown()).optional().catch(undefined),
  firstRowAsHeader: z.unknown().optional(),
  firstRowAsHeaders: z.unknown().optional(),
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
      // Adaptive Cards' enum values are case-insensitive (Microsoft's samples write `bolder`).
      const size = item.size?.toLowerCase();
      if (size === 'large' || size === 'extralarge') return `### ${value.replace(/\n/g, ' ')}`;
      return item.weight?.toLowerCase() === 'bolder' && !value.includes('\n')
        ? `**${value}**`
        : value;
    }
    case 'RichTextBlock':
      return listOf(adaptiveElement)
        .parse(item.inlines)
        .map((run) => {
          let value = escapeMarkdown(expandDateTime(run.text ?? ''));
          if (!value.trim()) return value;
          if (run.weight?.toLowerCase() === 'bolder') value = emphasize(value, '**');
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
    case 'Table':
      return adaptiveTable(item, depth);
    default:
      return '';
  }
}

/** Bounds a hostile table's output: a message is not a spreadsheet. */
const TABLE_ROWS_MAX = 50;
const TABLE_COLUMNS_MAX = 12;

/**
 * A table cell's elements on one line: a markdown table cell cannot hold blocks, so headings and
 * quotes lose their marks, lines are joined, and pipes are escaped (an unescaped `|`, including
 * one after an escaped backslash, would start the next cell).
 */
function tableCell(cell: unknown, depth: number): string {
  const items = isObject(cell) ? cell.items : undefined;
  return adaptiveElements(items, depth + 1)
    .replace(/^(?:#{1,6} |> ?)/gm, '')
    .replace(/\s*\n\s*/g, ' ')
    .replace(/(\\*)\|/g, (whole, slashes: string) => (slashes.length % 2 ? whole : `${slashes}\\|`))
    .trim();
}

/**
 * Adaptive Card `Table` (schema 1.5, https://adaptivecards.io/explorer/Table.html) as a markdown
 * table: the first row is its header unless `firstRowAsHeader` is false (then the header is left
 * blank, as markdown tables need one).
 */
function adaptiveTable(item: z.infer<typeof adaptiveElement>, depth: number): string {
  if (depth + 2 > MAX_DEPTH) return '';
  const rows = listOf(z.object({ cells: z.array(z.unknown()).optional().catch(undefined) }))
    .parse(item.rows)
    .slice(0, TABLE_ROWS_MAX)
    .map((row) =>
      (row.cells ?? []).slice(0, TABLE_COLUMNS_MAX).map((cell) => tableCell(cell, depth)),
    );
  const width = Math.max(0, ...rows.map((row) => row.length));
  if (!width || rows.every((row) => row.every((cell) => !cell))) return '';
  const line = (cells: readonly string[]) =>
    `| ${Array.from({ length: width }, (_, i) => cells[i] ?? '').join(' | ')} |`;
  // `firstRowAsHeader` is the schema's name; Microsoft's Table sample writes `firstRowAsHeaders`.
  const headerless = item.firstRowAsHeader === false || item.firstRowAsHeaders === false;
  const header = headerless ? [] : (rows.shift() ?? []);
  return [line(header), line(Array<string>(width).fill('---')), ...rows.map(line)].join('\n');
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
