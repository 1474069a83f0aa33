export {
  ANNOUNCE_BATCH_MAX,
  MESSAGES_STORED_EVENT,
  announceRelayedMessages,
  createAnnouncer,
  liveChannelKey,
  publishServerSideEvent,
  startRelay,
  storedMessageSchema,
  storedMessagesSchema,
} from './live.js';
export type { Announcer, StoredMessage, StoredMessages } from './live.js';
export {
  BROADCAST_HANDLES,
  MENTION,
  isMentionHandle,
  mentionHandles,
  mentionSuggestions,
  mentionedHandles,
} from './mentions.js';
export type { MentionHandles, MentionSuggestion } from './mentions.js';
export {
  CATCH_UP_MAX,
  MESSAGE_BODY_MAX,
  MESSAGE_PAGE,
  findMessage,
  findMessageWithPrevious,
  listMessages,
  messageBefore,
  messageBodySchema,
  messagePayloads,
  messagesAfter,
  postMessage,
  postMessageSchema,
  postMessages,
  workspaceMentionHandles,
} from './messages.js';
export type { OriginalPayload, PostMessageInput } from './messages.js';
export {
  MENTIONS_PAGE,
  UNREAD_COUNT_LIMIT,
  kindsOpenWithoutSeat,
  listMentions,
  markMentionsRead,
  markRoomRead,
  recordMentions,
  unreadChanges,
  unreadState,
} from './notifications.js';
export type { MentionItem, SidebarRoom, UnreadChange, UnreadState } from './notifications.js';
