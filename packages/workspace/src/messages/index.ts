export {
  ANNOUNCE_BATCH_MAX,
  MESSAGES_CHANGED_EVENT,
  MESSAGES_STORED_EVENT,
  announceRelayedMessages,
  changedMessageSchema,
  changedMessagesSchema,
  createAnnouncer,
  liveChannelKey,
  publishServerSideEvent,
  startRelay,
  storedMessageSchema,
  storedMessagesSchema,
} from './live.js';
export type {
  Announcer,
  ChangedMessage,
  ChangedMessages,
  StoredMessage,
  StoredMessages,
} from './live.js';
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
  CATCH_UP_LOOKBACK_MS,
  CATCH_UP_MAX,
  catchUpFrom,
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
export {
  FILE_NAME_MAX,
  MESSAGE_FILES_MAX,
  MESSAGE_FILES_TOTAL_MAX,
  MESSAGE_FILE_MAX,
  bodyWithFiles,
  cleanFileName,
  findReadableFile,
  insertMessageFiles,
  isInlineImage,
  messageFilePath,
  messageFilesOf,
  prepareFiles,
  sniffFileType,
} from './files.js';
export type { IncomingFile, MessageFileMeta, PreparedFile } from './files.js';
export { deleteWebhookMessage, editWebhookMessage, findWebhookMessage } from './webhook-edits.js';
export type { WebhookMessageEdit, WebhookMessageRef } from './webhook-edits.js';
