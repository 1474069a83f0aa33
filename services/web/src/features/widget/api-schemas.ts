import { z } from 'zod';
import { evidenceSchema, fileFeedbackSchema } from '@ferry/workspace';

/**
 * The widget endpoints' bodies and answers as zod schemas (issue 46), for the OpenAPI description.
 * The answers are checked against them in the test suite; the bodies are the schemas the handlers
 * parse with (after the key and rate limits, so their messages and order stay as they were).
 */

/** The visitor token header every widget call may carry (POST /visitors gives it). */
export const VISITOR_HEADER_NOTE =
  '`X-Service-Visitor` carries the visitor token (`vt_…`) from POST /widget/v1/visitors, which the widget keeps in localStorage.';

/** `?key=`: the public key, so GET /config stays a simple request (no preflight per page view). */
export const configQuerySchema = z.object({
  // A repeated `?key=` is no key (the header is read), as before the query was declared; the
  // description sits on the inner schema, which is what the OpenAPI document shows.
  key: z.preprocess(
    (value) => (typeof value === 'string' ? value : undefined),
    z.string().optional().meta({
      description: 'The workspace’s public key; without it, `X-Service-Tenant` is read.',
      example: 'pk_3kq9x2m7c4v8b1n6',
    }),
  ),
});

export const widgetConfigSchema = z.object({
  capture: z.boolean().meta({
    description:
      'Whether the widget records console and network activity to send with feedback (the workspace’s setting).',
  }),
});

export const newVisitorSchema = z.object({
  visitor: z.object({
    id: z.string().meta({ example: 'vis_01m95vcs448p8d8nkpkmbpan9e' }),
    token: z.string().meta({
      description: 'Shown this once and stored nowhere: send it as `X-Service-Visitor`.',
      example: 'vt_8Jd0s1Qp…',
    }),
  }),
});

export type NewVisitorJson = z.infer<typeof newVisitorSchema>;

/** POST /feedback's body as the widget sends it: the API's ticket, a screenshot, the capture. */
export const widgetFeedbackSchema = fileFeedbackSchema.extend({
  screenshot: z.string().nullish().meta({
    description:
      'A redacted capture of the page as a base64 data URL: PNG, JPEG or WebP, at most 2 MB (413 past it, 415 another type, 422 unreadable).',
    example: 'data:image/png;base64,iVBORw0KGgo…',
  }),
  evidence: evidenceSchema.nullish().meta({
    description:
      'The console and network activity before the report; kept only when the workspace has capture on, scrubbed and capped at 64 KB.',
  }),
});

export const feedbackFiledSchema = z.object({
  id: z
    .string()
    .meta({ description: 'The ticket’s id.', example: 'fbk_01m95vf7e1wft897bnf3hv3khf' }),
});
