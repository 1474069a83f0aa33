import { ERROR_SOURCES } from '@ferry/db';
import { z } from 'zod';

/**
 * The ingest endpoints' bodies and answers as zod schemas (issue 46), for the OpenAPI description.
 * The report schemas describe what SPEC.md's error report table accepts: they are never used to
 * validate, because report.ts coerces and cuts every field instead of refusing it (a report that
 * cannot be read is dropped, the rest of the batch kept), so the limits below are descriptions
 * (what is kept), not maxima a caller would be refused for.
 */

const text = (description: string, example?: string) =>
  z
    .union([z.string(), z.number(), z.boolean()])
    .nullish()
    .meta({ description, ...(example === undefined ? {} : { example }) });

const reportSource = z.enum(ERROR_SOURCES).meta({
  description: 'Where the error happened; any other value is recorded as `api`.',
  example: 'ruby',
});

/** One report (SPEC.md, "Error report"): every field optional, each cut to its cap when stored. */
export const nativeReportSchema = z
  .object({
    error_class: text(
      'Cut to 200 characters; blank becomes `UnknownError`. Numbers and booleans are read as text.',
      'NoMethodError',
    ),
    message: text('Cut to 1,000 characters.', "undefined method 'total' for nil"),
    backtrace: z
      .union([z.array(z.union([z.string(), z.number(), z.boolean()])), z.string()])
      .nullish()
      .meta({
        description:
          'Lines top frame first, as an array or one newline-separated string: the first 30 non-blank lines are kept, each cut to 400 characters, 8,000 characters in all.',
        example: ["app/models/order.rb:42:in 'total'"],
      }),
    url: text('Cut to 600 characters.', 'https://shop.example.com/cart'),
    request_method: text('Cut to 10 characters.', 'POST'),
    request_path: text('Cut to 500 characters.', '/cart/checkout'),
    environment: text('Cut to 40 characters.', 'production'),
    app_version: text('Cut to 40 characters.', '2.4.1'),
    context: z
      .record(z.string(), z.unknown())
      .nullish()
      .meta({
        description:
          'The first 30 keys, each cut to 60 characters; top-level strings cut to 500; nested objects and arrays kept as given.',
        example: { order_id: 1042 },
      }),
    occurred_at: z.union([z.string(), z.number()]).nullish().meta({
      description:
        'Any parseable timestamp (ISO 8601, or epoch seconds or milliseconds); unparseable, or more than an hour in the future, becomes the time of receipt.',
      example: '2026-12-06T14:03:11Z',
    }),
    source: reportSource.optional(),
  })
  .meta({ id: 'ErrorReport' });

/** POST /ingest/errors: one report, or a batch with a `source` its reports inherit. */
export const nativeBodySchema = z.union([
  nativeReportSchema,
  z.object({
    errors: z.array(nativeReportSchema).meta({
      description:
        'At most 10 reports are read; those past the tenth are ignored, and a report that cannot be read is dropped without failing the others.',
    }),
    source: reportSource.optional().meta({ description: 'For every report without its own.' }),
  }),
]);

/** The 202 of POST /ingest/errors (SPEC.md). */
export const acceptedSchema = z.object({
  accepted: z.number().int().min(0).meta({
    description: 'Reports stored; lower than the number sent when some were dropped or ignored.',
    example: 1,
  }),
  ids: z.array(z.string()).meta({
    description: 'The stored occurrences’ ids.',
    example: ['err_01m95vf7e1wft897bnf3hv3khf'],
  }),
});

export type Accepted = z.infer<typeof acceptedSchema>;

/**
 * What Sentry's envelope and store endpoints answer (and Sentry SDKs read): the event's id, or
 * `{}` for an envelope without an event (sessions, client reports, transactions: dropped).
 */
export const sentryAnswerSchema = z.object({
  id: z.string().optional().meta({
    description:
      'The event id, 32 hex digits: the SDK’s own, or one made up when it sent none. Absent when the envelope held no event.',
    example: 'fc6d8c0c43fc4630ad850ee518f1b9d0',
  }),
});
