import type { AuthorKind } from '@ferry/db';

/** DESIGN.md "Payload": the body of every `message_created` delivery. */
export interface MessageCreatedPayload {
  event: 'message_created';
  room: { id: string; name: string; workspace_id: string };
  message: {
    id: string;
    room_id: string;
    body: string;
    sender: { type: AuthorKind; id: string | null; name: string };
    created_at: string;
  };
}

export interface PayloadMessage {
  id: string;
  room_id: string;
  body: string;
  author_kind: AuthorKind;
  author_member_id: string | null;
  author_ref: string | null;
  display_name: string;
  created_at: Date;
}

export function messageCreatedPayload(
  room: { id: string; name: string; workspace_id: string },
  message: PayloadMessage,
): MessageCreatedPayload {
  return {
    event: 'message_created',
    room: { id: room.id, name: room.name, workspace_id: room.workspace_id },
    message: {
      id: message.id,
      room_id: message.room_id,
      body: message.body,
      sender: {
        type: message.author_kind,
        id: message.author_member_id ?? message.author_ref,
        name: message.display_name,
      },
      created_at: message.created_at.toISOString(),
    },
  };
}
