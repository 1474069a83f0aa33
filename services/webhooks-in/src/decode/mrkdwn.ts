import { emojify } from './emoji.js';
import { link, quote } from './markdown.js';

/**
 * Slack's mrkdwn (https://docs.slack.dev/messaging/formatting-message-text) -> our markdown:
 * `<url|label>` and `<url>` links, `<@U…|name>`/`<#C…|name>`/`<!here>` shown readably, `*bold*`
 * (Slack's single star is bold), `~strike~`, `:shortcode:` emoji, `&amp;`/`&lt;`/`&gt;` (Slack's
 * required escapes) decoded, `>>>` quoting the rest. Code spans and blocks are left alone (but for
 * the escapes). What is already markdown (`**bold**`, `[a](b)`, lists) passes through, so SPEC's
 * `text` alias keeps working for senders who write markdown.
 */

/** With `markdown`, the text is markdown already (Mattermost, Teams): only links, mentions and emoji. */
export interface MrkdwnOptions {
  markdown?: boolean;
}

/** Anything below needs one of these; plain sentences skip the whole pass. */
const NEEDS_WORK = /[<>*~:&`]/;
const CODE = /```[\s\S]*?```|`[^`\n]+`/g;
const INLINE =
  /<([^<>\n]+)>|(?<![\p{L}\p{N}*\\])\*(?![\s*])([^*\n]*?[^\s*\\])\*(?![\p{L}\p{N}*])|(?<![\p{L}\p{N}~])~(?![\s~])([^~\n]*?[^\s~])~(?![\p{L}\p{N}~])/gu;

export function mrkdwnToMarkdown(text: string, options: MrkdwnOptions = {}): string {
  if (!NEEDS_WORK.test(text)) return text;
  const rest = /^(?:>>>|&gt;&gt;&gt;)[ \t]?/m.exec(text);
  if (rest) {
    const before = text.slice(0, rest.index);
    const after = text.slice(rest.index + rest[0].length);
    return `${mrkdwnToMarkdown(before, options)}${quote(mrkdwnToMarkdown(after, options))}`;
  }
  let out = '';
  let last = 0;
  for (const match of text.matchAll(CODE)) {
    out += inline(text.slice(last, match.index), options);
    out += options.markdown ? match[0] : decodeEscapes(match[0]);
    last = match.index + match[0].length;
  }
  out += inline(text.slice(last), options);
  return out;
}

function decodeEscapes(text: string): string {
  return text.replace(/&(lt|gt|amp);/g, (_m, name: string) =>
    name === 'lt' ? '<' : name === 'gt' ? '>' : '&',
  );
}

/**
 * Plain text between tokens: emoji, and Slack's escapes decoded (a line's leading `&gt;` becomes
 * `>`, a quote in markdown as in Slack).
 */
function plain(text: string, options: MrkdwnOptions): string {
  const emojified = emojify(text);
  return options.markdown ? emojified : decodeEscapes(emojified);
}

function inline(text: string, options: MrkdwnOptions): string {
  if (!text) return '';
  let out = '';
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    const [whole, token, bold, strike] = match;
    if (options.markdown && token === undefined) continue;
    out += plain(text.slice(last, match.index), options);
    if (token !== undefined) out += angleToken(token, whole, options);
    else if (bold !== undefined) out += `**${inline(bold, options)}**`;
    else if (strike !== undefined) out += `~~${inline(strike, options)}~~`;
    last = match.index + whole.length;
  }
  return out + plain(text.slice(last), options);
}

const BROADCASTS: Record<string, string> = {
  here: '@here',
  channel: '@channel',
  everyone: '@everyone',
};

/** One `<…>`: a link, a mention, a broadcast, a date; anything else is kept as written. */
function angleToken(token: string, whole: string, options: MrkdwnOptions): string {
  const bar = token.indexOf('|');
  const target = bar === -1 ? token : token.slice(0, bar);
  const label = bar === -1 ? '' : plain(token.slice(bar + 1), options);
  switch (target[0]) {
    case '@':
      // A user: `<@U123|ada>` -> @ada (a member with that handle is mentioned, SPEC.md).
      return `@${label.replace(/^@/, '') || target.slice(1)}`;
    case '#':
      return `#${label.replace(/^#/, '') || target.slice(1)}`;
    case '!': {
      const command = target.slice(1);
      const broadcast = BROADCASTS[command.toLowerCase()];
      if (broadcast) return broadcast;
      // `<!subteam^ID|@team>`, `<!date^1392734382^{date}|Feb 18th>`: the label is the readable part.
      return label || `@${command.split('^')[0] ?? command}`;
    }
    default:
      break;
  }
  if (/^(?:https?|mailto|ftp):/i.test(target) || /^[a-z][a-z0-9+.-]*:/i.test(target)) {
    // Any scheme becomes a markdown link; the renderer keeps only http(s) and mailto as links and
    // shows the label of the rest as text, like every other message.
    const shown = label || target.replace(/^mailto:/i, '');
    return link(shown, decodeEscapes(target));
  }
  // Not a Slack token (`a <b> c`): kept as typed; the renderer shows it as text, never as a tag.
  return whole;
}
