import { z } from 'zod';
import type { ShipRoute } from '@ferry/db';

/**
 * The answers of /agents/v1 (packages/agent/PROTOCOL.md) as zod schemas (issue 46): the OpenAPI
 * description is generated from them and the handlers' types are inferred from them, so the
 * description, the protocol and the code cannot drift apart.
 */

const workspaceSchema = z.object({
  id: z.string().meta({ example: 'wsp_01m95vcs448p8d8nkpkmbpan9e' }),
  name: z.string().meta({ example: 'Acme' }),
  slug: z.string().meta({ example: 'acme' }),
});

/** GET /agents/v1/whoami. */
export const whoamiJsonSchema = z.object({
  workspace: workspaceSchema,
  agents: z.array(
    z.object({
      id: z.string().meta({ example: 'agt_01m95vcs448p8d8nkpkmbpan9e' }),
      name: z.string().meta({ example: 'shop' }),
      online: z.boolean().meta({ description: 'Stream open and a heartbeat within 60 s.' }),
    }),
  ),
});

const SHIP_ROUTES = ['quick_fix', 'pr'] as const satisfies readonly ShipRoute[];

export type WhoamiJson = z.infer<typeof whoamiJsonSchema>;

/** POST /agents/v1/heartbeat. */
export const heartbeatJsonSchema = z.object({
  ok: z.literal(true),
  unacked: z
    .number()
    .int()
    .min(0)
    .meta({ description: 'Work items not acked yet: the stream sends them again now.' }),
});

/** POST /agents/v1/ack. */
export const ackJsonSchema = z.object({ ok: z.literal(true) });

/** POST /agents/v1/events: the message the event became; a proposal also gets its route. */
export const eventAnswerSchema = z.object({
  message_id: z.string().meta({ example: 'msg_01m95vcs448p8d8nkpkmbpan9e' }),
  route: z
    .enum(SHIP_ROUTES)
    .optional()
    .meta({ description: 'Proposals only: decided by the workspace’s ship policy.' }),
  reason: z
    .string()
    .optional()
    .meta({ description: 'Proposals only: the rule that decided.', example: '4 files > 3' }),
});

export type EventAnswer = z.infer<typeof eventAnswerSchema>;

export const eventJsonSchema = eventAnswerSchema.extend({ ok: z.literal(true) });

/** GET /agents/v1/stream: not JSON, Server-Sent Events (PROTOCOL.md). */
export const streamSchema = z.string().meta({
  description:
    'Server-Sent Events: first `event: hello` (data `{"agent": {"id", "name", "room_id"}, "workspace": {"id", "name", "slug"}}`), then one `event: work` per unacked work item, oldest first, its `id:` the work id (data `{"work_id", "kind": "feedback" | "message", "conversation_id", "feedback", "message"}`), and a `: keepalive` comment every 15 s.',
  example:
    'retry: 3000\n\nevent: hello\ndata: {"agent":{"id":"agt_…","name":"shop","room_id":"room_…"},"workspace":{"id":"wsp_…","name":"Acme","slug":"acme"}}\n\n',
});
