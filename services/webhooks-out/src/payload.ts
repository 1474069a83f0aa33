import { apiMessageJson, type ApiMessageJson, type MessageJsonSource } from '@ferry/workspace';

/** DESIGN.md "Payload": the body of every `message_created` delivery. */
export interface MessageCreatedPayload {
  event: 'message_created';
  room: { id: string; name: string; workspace_id: string };
  /** The message as the rooms API shows it (@ferry/workspace apiMessageJson), byte for byte. */
  message: ApiMessageJson;
}

/** The message columns a payload is built from. */
export type PayloadMessage = MessageJsonSource;

export function messageCreatedPayload(
  room: { id: string; name: string; workspace_id: string },
  message: PayloadMessage,
): MessageCreatedPayload {
  return {
    event: 'message_created',
    room: { id: room.id, name: room.name, workspace_id: room.workspace_id },
    message: apiMessageJson(message),
  };
}
