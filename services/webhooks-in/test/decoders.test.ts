import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodePayload } from '../src/decode/index.js';
import { mrkdwnToMarkdown } from '../src/decode/mrkdwn.js';
import { readPayload, STORED_PAYLOAD_MAX } from '../src/decode/request-body.js';

/**
 * The decoders on payloads written from the vendors' public documentation (test/payloads/):
 * - slack-blocks.json: Slack, "Sending messages using incoming webhooks"
 *   (https://docs.slack.dev/messaging/sending-messages-using-incoming-webhooks), its Block Kit example.
 * - slack-attachment.json: Slack, "Reference: Secondary message attachments"
 *   (https://docs.slack.dev/legacy/legacy-messaging/legacy-secondary-message-attachments).
 * - mattermost.json: Mattermost, "Incoming webhooks"
 *   (https://developers.mattermost.com/integrate/webhooks/incoming/), the test-results table and
 *   the `props.card` example.
 * - mattermost-attachment.json: Mattermost, "Message attachments"
 *   (https://developers.mattermost.com/integrate/reference/message-attachments/).
 * - discord.json: Discord, "Execute Webhook" and "Embed Object"
 *   (https://discord.com/developers/docs/resources/webhook#execute-webhook,
 *   https://discord.com/developers/docs/resources/message#embed-object).
 * - teams-messagecard.json: Microsoft, "Legacy actionable message card reference"
 *   (https://learn.microsoft.com/en-us/outlook/actionable-messages/message-card-reference).
 * - teams-adaptive.json: Microsoft, "Create Incoming Webhooks: send Adaptive Cards"
 *   (https://learn.microsoft.com/en-us/microsoftteams/platform/webhooks-and-connectors/how-to/connectors-using)
 *   with the FactSet and Action.OpenUrl of https://adaptivecards.io/explorer/.
 * - teams-table.json: Microsoft's Table sample, on "Table Element"
 *   (https://learn.microsoft.com/en-us/adaptive-cards/schema-explorer/table, the same card as
 *   https://adaptivecards.io/explorer/Table.html and the AdaptiveCards repo's
 *   samples/v1.5/Elements/Table.json), as published (its `firstRowAsHeaders` spelling included).
 * - teams-activity-update.json: Microsoft's "Activity Update" sample
 *   (https://adaptivecards.io/samples/ActivityUpdate.html, the AdaptiveCards repo's
 *   samples/v1.0/Scenarios/ActivityUpdate.json, also on Teams' "Types of cards" page,
 *   https://learn.microsoft.com/en-us/microsoftteams/platform/task-modules-and-cards/cards/cards-reference#adaptive-card):
 *   a FactSet inside a Container, an Image and TextBlocks in a ColumnSet, `{{DATE(…,Short)}}`.
 * - teams-date-time.json: the Date/Time example of "Text features"
 *   (https://learn.microsoft.com/en-us/adaptive-cards/authoring-cards/text-features).
 */

function recorded(name: string): Record<string, unknown> {
  return JSON.parse(
    readFileSync(new URL(`./payloads/${name}.json`, import.meta.url), 'utf8'),
  ) as Record<string, unknown>;
}

function rendered(payload: Record<string, unknown>): string {
  const decoded = decodePayload(payload);
  expect(decoded.text).toBeDefined();
  return decoded.text ?? '';
}

describe('Slack mrkdwn', () => {
  it.each([
    ['<https://ci.example/42|build 42>', '[build 42](<https://ci.example/42>)'],
    ['see <https://ci.example/42>', 'see [https://ci.example/42](<https://ci.example/42>)'],
    ['<mailto:ops@example.com|ops>', '[ops](<mailto:ops@example.com>)'],
    ['*bold* and _italic_ and ~gone~', '**bold** and _italic_ and ~~gone~~'],
    ['already **markdown** stays', 'already **markdown** stays'],
    ['a*b*c 2 * 3 * 4', 'a*b*c 2 * 3 * 4'],
    [':tada: shipped :+1::skin-tone-3:', '🎉 shipped 👍🏼'],
    [':not_an_emoji: 10:30:45', ':not_an_emoji: 10:30:45'],
    ['<!here> <!channel> <!everyone>', '@here @channel @everyone'],
    ['<@U024BE7LH|ada> in <#C024BE7LR|general>', '@ada in #general'],
    ['<@U024BE7LH> <!subteam^SAZ94GDB8|@oncall>', '@U024BE7LH @oncall'],
    ['<!date^1392734382^{date_num}|2014-02-18 6:39 AM>', '2014-02-18 6:39 AM'],
    ['1 &lt; 2 &amp;&amp; 3 &gt; 2', '1 < 2 && 3 > 2'],
    ['&gt; quoted line', '> quoted line'],
    ['before\n>>>all\nof this', 'before\n> all\n> of this'],
    ['`*not bold* :tada:` *bold*', '`*not bold* :tada:` **bold**'],
    ['```\n<https://x|y> &lt;\n```', '```\n<https://x|y> <\n```'],
    ['<javascript:alert(1)|click>', '[click](<javascript:alert(1)>)'],
    ['a <b> c', 'a <b> c'],
  ])('%j -> %j', (input, output) => {
    expect(mrkdwnToMarkdown(input)).toBe(output);
  });
});

describe('payload families', () => {
  it('SPEC.md: body is kept exactly as sent and wins over every family field', () => {
    const decoded = decodePayload({
      body: 'Deploy *done* :tada:',
      text: 'x',
      blocks: [],
      content: 'y',
    });
    expect(decoded).toMatchObject({ family: 'native', text: 'Deploy *done* :tada:' });
  });

  it('Slack blocks: sections, fields, the image accessory as a link; text is only the fallback', () => {
    const text = rendered(recorded('slack-blocks'));
    expect(decodePayload(recorded('slack-blocks')).family).toBe('slack');
    expect(text).toBe(
      [
        'Danny Torrence left the following review for your property:',
        '[Overlook Hotel](<https://example.com>) \n ⭐ \n Doors had too many axe holes, guest in room 237 was far too rowdy, whole place felt stuck in the 1920s.',
        '[Haunted hotel image](<https://is5-ssl.mzstatic.com/image/thumb/Purple3/v4/d3/72/5c/d3725c8f-c642-5d69-1904-aa36e4297885/source/256x256bb.jpg>)',
        '- **Average Rating** 1.0',
      ].join('\n\n'),
    );
    expect(text).not.toContain('1 star review');
  });

  it('Slack blocks: header, context, divider, image, rich_text, actions', () => {
    const text = rendered({
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: 'Deploy *42* :rocket:', emoji: true } },
        {
          type: 'context',
          elements: [
            { type: 'mrkdwn', text: '*ops* bot' },
            { type: 'image', image_url: 'https://ci.example/i.png', alt_text: 'logo' },
          ],
        },
        { type: 'divider' },
        { type: 'image', image_url: 'https://ci.example/graph.png', alt_text: 'latency graph' },
        {
          type: 'rich_text',
          elements: [
            {
              type: 'rich_text_section',
              elements: [
                { type: 'text', text: 'Hello ', style: { bold: true } },
                { type: 'link', url: 'https://ci.example/42', text: 'build' },
                { type: 'emoji', name: 'tada' },
                { type: 'broadcast', range: 'here' },
              ],
            },
            {
              type: 'rich_text_list',
              style: 'bullet',
              elements: [
                { type: 'rich_text_section', elements: [{ type: 'text', text: 'one' }] },
                { type: 'rich_text_section', elements: [{ type: 'text', text: 'two' }] },
              ],
            },
            {
              type: 'rich_text_list',
              style: 'ordered',
              elements: [
                { type: 'rich_text_section', elements: [{ type: 'text', text: 'first' }] },
                { type: 'rich_text_section', elements: [{ type: 'text', text: 'second' }] },
              ],
            },
            { type: 'rich_text_preformatted', elements: [{ type: 'text', text: 'npm test' }] },
            { type: 'rich_text_quote', elements: [{ type: 'text', text: 'quoted' }] },
          ],
        },
        {
          type: 'actions',
          elements: [
            {
              type: 'button',
              text: { type: 'plain_text', text: 'Open build' },
              url: 'https://ci.example/42',
            },
            { type: 'button', text: { type: 'plain_text', text: 'Approve' }, action_id: 'approve' },
          ],
        },
        { type: 'input', label: { type: 'plain_text', text: 'ignored' } },
      ],
    });
    expect(text).toBe(
      [
        '### Deploy \\*42\\* 🚀',
        '_**ops** bot_ · _[logo](<https://ci.example/i.png>)_',
        '---',
        '[latency graph](<https://ci.example/graph.png>)',
        '**Hello** [build](<https://ci.example/42>)🎉@here\n\n- one\n- two\n\n1. first\n2. second\n\n```\nnpm test\n```\n\n> quoted',
        '[Open build](<https://ci.example/42>)',
      ].join('\n\n'),
    );
  });

  it('Slack attachment: pretext, colour mark, author, linked title, text, fields, images, footer', () => {
    const text = rendered(recorded('slack-attachment'));
    expect(text).toBe(
      [
        'Optional text that appears above the attachment block',
        [
          '> 🟩 [Bobby Tables](<http://flickr.com/bobby/>)',
          '>',
          '> **[Slack API Documentation](<https://api.slack.com/>)**',
          '>',
          '> Optional text that appears within the attachment',
          '>',
          '> - **Priority**: High',
          '>',
          '> [image](<http://my-website.com/path/to/image.jpg>) · [thumbnail](<http://example.com/path/to/thumb.png>)',
          '>',
          '> _Slack API · 1973-11-29 21:33 UTC_',
        ].join('\n'),
      ].join('\n\n'),
    );
  });

  it('Slack attachment: the fallback when nothing else is there; text + attachments both shown', () => {
    expect(rendered({ attachments: [{ fallback: 'Build *42* failed', color: 'danger' }] })).toBe(
      '> 🟥 Build **42** failed',
    );
    expect(rendered({ text: 'Deploy', attachments: [{ text: 'to prod', color: 'warning' }] })).toBe(
      'Deploy\n\n> 🟨 to prod',
    );
  });

  it('Slack: icon_emoji and icon_url become the avatar; a non-http icon is ignored', () => {
    expect(decodePayload({ text: 'x', icon_emoji: ':ghost:' }).avatar).toEqual({ emoji: '👻' });
    expect(decodePayload({ text: 'x', icon_url: 'https://ci.example/bot.png' }).avatar).toEqual({
      url: 'https://ci.example/bot.png',
    });
    expect(decodePayload({ text: 'x', icon_url: 'javascript:alert(1)' }).avatar).toBeUndefined();
  });

  it('Slack: recognized parts that render to nothing leave the text undefined or empty', () => {
    expect(decodePayload({ blocks: [{ type: 'input' }] }).text).toBe('');
    expect(decodePayload({ attachments: [{ color: 'good' }] }).text).toBe('');
    expect(decodePayload({ username: 'x' }).text).toBeUndefined();
  });

  it('Mattermost: markdown text with emoji, the card after it; attachments as Slack', () => {
    const text = rendered(recorded('mattermost'));
    expect(decodePayload(recorded('mattermost')).family).toBe('mattermost');
    expect(text).toContain(
      '#### Test results for July 27th, 2017\n@channel please review failed tests.',
    );
    expect(text).toContain('| Server     | 948         | ✅ 0');
    expect(text).toContain('⚠️ 2 [(see details)](https://linktologs)');
    expect(text).toMatch(
      /\n\nSalesforce Opportunity Information:\n\n \[Opportunity Name\]\(https:\/\/salesforce\.com\/OPPORTUNITY_ID\)/,
    );
    expect(decodePayload(recorded('mattermost')).avatar).toEqual({
      url: 'https://mattermost.com/wp-content/uploads/2022/02/icon.png',
    });

    const attachment = rendered(recorded('mattermost-attachment'));
    expect(attachment).toContain(
      'This is optional pretext that shows above the attachment.\n\n> 🟧 [Mattermost](<https://mattermost.org/>)',
    );
    expect(attachment).toContain(
      '> **[Example Attachment](<https://developers.mattermost.com/integrate/reference/message-attachments/>)**',
    );
    expect(attachment).toContain('> - **Column One**: Testing\n> - **Column Two**: Testing');
  });

  it('Discord: content, embeds with author, linked title, description, fields, footer and time', () => {
    const decoded = decodePayload(recorded('discord'));
    expect(decoded.family).toBe('discord');
    expect(decoded.avatar).toEqual({ url: 'https://i.imgur.com/4M34hi2.png' });
    const text = decoded.text ?? '';
    expect(text).toContain('Text message. Up to 2000 characters. 2023-11-14 22:13 UTC :shipit:');
    expect(text).toContain('> 🟨 [Birdie♫](<https://www.reddit.com/r/cats/>)');
    expect(text).toContain('> **[Title](<https://google.com/>)**');
    expect(text).toContain('[hyperlink](https://google.com) `code`');
    expect(text).toContain('> - **Text**: More text\n> - **Even more text**: Yup');
    expect(text).toContain("> - **Thanks!**: You're welcome 😉");
    expect(text).toContain('> _Woah! So cool! 😏 · 2026-11-25 09:30 UTC_');
  });

  it('Teams MessageCard: title, activity, facts, the OpenUri action as a link', () => {
    const decoded = decodePayload(recorded('teams-messagecard'));
    expect(decoded.family).toBe('teams');
    expect(decoded.text).toBe(
      [
        '> ### 🟦 New task on Project Tango',
        '>',
        '> **Larry Bryant created a new task**',
        '>',
        '> On Project Tango',
        '>',
        '> - **Assigned to**: Unassigned',
        '> - **Due date**: Mon May 01 2017 17:07:18 GMT-0700 (Pacific Daylight Time)',
        '> - **Status**: Not started',
        '>',
        '> [Learn More](<https://learn.microsoft.com/outlook/actionable-messages>)',
      ].join('\n'),
    );
  });

  it('Teams Adaptive Card: TextBlock, FactSet, Action.OpenUrl; bare cards too', () => {
    const wrapped = recorded('teams-adaptive');
    const text = rendered(wrapped);
    expect(text).toBe(
      [
        '**Publish Adaptive Card Schema**',
        'For Samples and Templates, see [https://adaptivecards.io/samples](https://adaptivecards.io/samples)',
        '- **Board**: Adaptive Cards\n- **List**: Backlog\n- **Assigned to**: Matt Hidinger\n- **Due date**: Not set',
        '[View](<https://adaptivecards.io>)',
      ].join('\n\n'),
    );
    const attachments = wrapped.attachments as { content: Record<string, unknown> }[];
    expect(rendered(attachments[0]!.content)).toBe(text);
  });

  it("Teams Adaptive Card Table (Microsoft's sample): a markdown table, first row as header", () => {
    expect(rendered(recorded('teams-table'))).toBe(
      [
        '| **Name** | **Type** | **Description** |',
        '| --- | --- | --- |',
        "| columns | ColumnDefinition[] | Defines the table's columns (number of columns, and column sizes). |",
        '| rows | TableRow[] | Defines the rows of the Table, each being a collection of cells. Rows are not required, which allows empty Tables to be generated via templating without breaking the rendering of the whole card. |',
      ].join('\n'),
    );
  });

  it('Teams Table: headerless, ragged rows, pipes and blocks in cells, nothing at all', () => {
    const cell = (...items: unknown[]) => ({ type: 'TableCell', items });
    const text = (value: string, extra: Record<string, unknown> = {}) => ({
      type: 'TextBlock',
      text: value,
      ...extra,
    });
    const table = (rows: unknown[][], extra: Record<string, unknown> = {}) => ({
      type: 'AdaptiveCard',
      body: [{ type: 'Table', rows: rows.map((cells) => ({ type: 'TableRow', cells })), ...extra }],
    });
    expect(
      rendered(
        table(
          [
            [cell(text('a | b')), cell(text('Big', { size: 'Large' }), text('second'))],
            [cell(text('only one'))],
          ],
          { firstRowAsHeader: false },
        ),
      ),
    ).toBe(['|  |  |', '| --- | --- |', '| a \\| b | Big second |', '| only one |  |'].join('\n'));
    // A cell holding a FactSet: its lines joined on one row.
    expect(
      rendered(
        table([
          [cell(text('Fact'))],
          [
            cell({
              type: 'FactSet',
              facts: [
                { title: 'A', value: '1' },
                { title: 'B', value: '2' },
              ],
            }),
          ],
        ]),
      ),
    ).toBe('| Fact |\n| --- |\n| - **A**: 1 - **B**: 2 |');
    expect(decodePayload(table([[cell()], [cell(text('  '))]])).text).toBe('');
    expect(decodePayload(table([])).text).toBe('');
  });

  it("Teams: FactSet inside Container and ColumnSet, and {{DATE(…)}} (Microsoft's Activity Update sample)", () => {
    expect(rendered(recorded('teams-activity-update'))).toBe(
      [
        '**Publish Adaptive Card schema**',
        '[image](<https://pbs.twimg.com/profile_images/3647943215/d7f12830b3c17a5a9e4afcc370e3a37e_400x400.jpeg>)',
        '**Matt Hidinger**',
        'Created Tue, Feb 14th, 2017',
        'Now that we have defined the main rules and features of the format, we need to produce a schema and publish it to GitHub. The schema will be the starting point of our reference documentation.',
        '- **Board**: Adaptive Card\n- **List**: Backlog\n- **Assigned to**: Matt Hidinger\n- **Due date**: Not set',
        '[View](<http://adaptivecards.io>)',
      ].join('\n\n'),
    );
    const inColumns = {
      type: 'AdaptiveCard',
      body: [
        {
          type: 'ColumnSet',
          columns: [
            {
              type: 'Column',
              items: [{ type: 'FactSet', facts: [{ title: 'Env', value: 'prod' }] }],
            },
            {
              type: 'Column',
              items: [
                {
                  type: 'Container',
                  items: [
                    {
                      type: 'FactSet',
                      facts: [{ title: 'Due', value: '{{DATE(2026-12-06T23:30:00-02:00, LONG)}}' }],
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    expect(rendered(inColumns)).toBe('- **Env**: prod\n\n- **Due**: Monday, December 7th, 2026');
  });

  it('Teams {{DATE()}} and {{TIME()}} as the Text features page shows them, in UTC; malformed ones stay as sent', () => {
    expect(rendered(recorded('teams-date-time'))).toBe(
      'Your package will arrive on Tue, Feb 14th, 2017 at 6:00 AM UTC',
    );
    const shown = (value: string) =>
      rendered({ type: 'AdaptiveCard', body: [{ type: 'TextBlock', text: value }] });
    expect(shown('{{DATE(2017-02-14T06:08:39Z)}}')).toBe('2/14/2017');
    expect(shown('{{DATE(2017-02-14T06:08:39Z, COMPACT)}}')).toBe('2/14/2017');
    expect(shown('{{DATE(2017-03-01T06:08:39Z, LONG)}}')).toBe('Wednesday, March 1st, 2017');
    expect(shown('{{DATE(2017-03-22T06:08:39Z, SHORT)}}')).toBe('Wed, Mar 22nd, 2017');
    expect(shown('{{DATE(2017-03-11T06:08:39Z, SHORT)}}')).toBe('Sat, Mar 11th, 2017');
    // An offset is applied: 23:30 at -02:00 is 01:30 UTC the next day.
    expect(shown('{{TIME(2017-02-14T23:30:00-02:00)}}')).toBe('1:30 AM UTC');
    expect(shown('{{TIME(2017-02-14T12:05:00Z)}}')).toBe('12:05 PM UTC');
    for (const raw of [
      '{{date(2017-02-14T06:08:39Z)}}',
      '{{ DATE(2017-02-14T06:08:39Z) }}',
      '{{DATE(2017-02-14)}}',
      '{{DATE(2017-02-14T06:08:39)}}',
      '{{DATE(2017-13-14T06:08:39Z)}}',
      '{{DATE(2017-02-14T06:08:39Z, HUGE)}}',
      '{{TIME(2017-02-14T06:08:39Z, SHORT)}}',
    ]) {
      expect(shown(raw)).toBe(raw);
    }
  });
});

describe('request bodies', () => {
  it('reads JSON, a form payload= field, plain form fields, and JSON sent as a form', () => {
    expect(readPayload('application/json; charset=utf-8', '{"text":"a"}')).toMatchObject({
      value: { text: 'a' },
      format: 'json',
      original: '{"text":"a"}',
    });
    const form = `payload=${encodeURIComponent('{"text":"b"}')}`;
    expect(readPayload('application/x-www-form-urlencoded', form)).toMatchObject({
      value: { text: 'b' },
      format: 'form',
      original: '{"text":"b"}',
    });
    expect(readPayload('application/x-www-form-urlencoded', 'body=hi&sender=CI')).toMatchObject({
      value: { body: 'hi', sender: 'CI' },
      format: 'form',
    });
    expect(readPayload('application/x-www-form-urlencoded', '{"body":"c"}').value).toEqual({
      body: 'c',
    });
    expect(readPayload(undefined, '{"body":"d"}').value).toEqual({ body: 'd' });
  });

  it('answers 415 for other types, 400 for bad JSON, and caps the stored original at 64 KB', () => {
    for (const type of ['text/plain', 'multipart/form-data; boundary=x', 'application/xml']) {
      expect(() => readPayload(type, 'x')).toThrow(
        expect.objectContaining({ status: 415 }) as Error,
      );
    }
    expect(() => readPayload('application/json', '{nope')).toThrow(
      expect.objectContaining({ status: 400 }) as Error,
    );
    expect(() => readPayload('application/x-www-form-urlencoded', 'payload=%7Bnope')).toThrow(
      /"payload" field is not valid JSON/,
    );
    const big = JSON.stringify({ body: 'x'.repeat(STORED_PAYLOAD_MAX) });
    const read = readPayload('application/json', big);
    expect(read.original).toHaveLength(STORED_PAYLOAD_MAX);
    expect(read.truncated).toBe(true);
    // 64 KB are bytes: two-byte and four-byte characters are cut whole, never inside one.
    const wide = readPayload('application/json', JSON.stringify({ body: 'é🎉'.repeat(20_000) }));
    expect(wide.truncated).toBe(true);
    expect(Buffer.byteLength(wide.original)).toBeLessThanOrEqual(STORED_PAYLOAD_MAX);
    expect(Buffer.byteLength(wide.original)).toBeGreaterThan(STORED_PAYLOAD_MAX - 4);
    expect(wide.original).toMatch(/(?:é|🎉)$/u);
    const fits = JSON.stringify({ body: 'é'.repeat(30_000) });
    expect(readPayload('application/json', fits)).toMatchObject({
      original: fits,
      truncated: false,
    });
  });
});
