import { z } from 'zod';

/**
 * The error alert API's answers as zod schemas (issue 46): the OpenAPI description is generated
 * from them and the JSON functions' types are inferred from them.
 */

const when = z.iso.datetime({ offset: true }).meta({ description: 'ISO 8601, UTC.' });
const allWhenNull = (what: string) =>
  z
    .array(z.string())
    .nullable()
    .meta({ description: `Null: every ${what}.` });

/** The first rule as `/api/v1/error-alerts` answers it (and the Settings page shows it). */
export const errorAlertRulesJsonSchema = z.object({
  room_id: z.string().nullable().meta({
    description: 'The room alerts are posted in; null: none.',
    example: 'room_01m95vcs448p8d8nkpkmbpan9e',
  }),
  new_group: z.boolean().meta({ description: 'Alert on a new error group.' }),
  regression: z.boolean().meta({ description: 'Alert when a resolved group comes back.' }),
  frequency: z
    .object({ count: z.number().int(), minutes: z.number().int() })
    .nullable()
    .meta({
      description: 'Alert when a group has `count` occurrences within `minutes`.',
      example: { count: 50, minutes: 10 },
    }),
  url: z.string().nullable().meta({
    description: 'Gets a signed POST per alert; null: none.',
    example: 'https://alerts.example.com/ferry',
  }),
  environments: allWhenNull('environment'),
  url_state: z.enum(['enabled', 'disabled']).nullable().meta({
    description: 'The URL’s delivery state: `disabled` after 20 failures in a row (or a 410).',
  }),
  updated_at: when.nullable().meta({ description: 'Null while the workspace has no rule.' }),
});
export type ErrorAlertRulesJson = z.infer<typeof errorAlertRulesJsonSchema>;

/** One of several rules (`/api/v1/error-alerts/rules`). */
export const errorAlertRuleJsonSchema = errorAlertRulesJsonSchema
  .extend({
    id: z.string().meta({ example: 'alr_01m95vcs448p8d8nkpkmbpan9e' }),
    name: z.string(),
    sources: allWhenNull('source'),
    levels: allWhenNull('level'),
    releases: allWhenNull('release'),
    tags: z
      .array(z.string())
      .nullable()
      .meta({ description: '`key=value` filters (`*` matches anything); null: none.' }),
    notify_member_ids: z.array(z.string()).nullable(),
    hand_to_agent: z.boolean().meta({ description: 'Files the group’s ticket for the agent.' }),
    created_at: when,
  })
  .meta({ id: 'AlertRule' });
export type ErrorAlertRuleJson = z.infer<typeof errorAlertRuleJsonSchema>;

/** A PUT or POST answer: the rule and its URL's signing secret (never on a GET). */
const signingSecret = z.string().nullable().meta({
  description:
    'The URL’s secret: receivers verify the Standard Webhooks signature with it. Null without a URL.',
});
export const savedErrorAlertRulesJsonSchema = errorAlertRulesJsonSchema.extend({
  signing_secret: signingSecret,
});
export const savedErrorAlertRuleJsonSchema = errorAlertRuleJsonSchema.extend({
  signing_secret: signingSecret,
});

/**
 * The body of every `error_group.*` delivery to an alert rule's URL (Standard Webhooks: `type`,
 * `timestamp`, `data`): what the OpenAPI description lists under `webhooks`.
 */
export const errorAlertPayloadSchema = z.object({
  type: z.enum(['error_group.created', 'error_group.regressed', 'error_group.spiking']),
  timestamp: when,
  data: z.object({
    workspace_id: z.string(),
    trigger: z.enum(['created', 'regressed', 'spiking']),
    group: z.object({
      id: z.string(),
      error_class: z.string(),
      latest_message: z.string(),
      culprit: z
        .string()
        .nullable()
        .meta({ description: 'The top frame of the latest backtrace.' }),
      environment: z.string().nullable(),
      occurrence_count: z.number().int().min(0),
      first_seen_at: when,
      last_seen_at: when,
      url: z.string().meta({ description: 'The group’s page in Ferry.' }),
    }),
  }),
});
