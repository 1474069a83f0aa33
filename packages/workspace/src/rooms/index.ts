export {
  HISTORY_PAGE_DEFAULT,
  HISTORY_PAGE_MAX,
  apiMessageJson,
  findReadableRoom,
  apiMessageJsonSchema,
  apiRoomJsonSchema,
  readableRooms,
  roomHistory,
} from './room-history.js';
export type { ApiMessageJson, ApiRoomJson, MessageJsonSource } from './room-history.js';
export {
  addRoomPerson,
  addRoomPersonSchema,
  canAddPeople,
  listAddablePeople,
  listRoomPeople,
  roomMentionSuggestions,
} from './room-people.js';
export type { RoomPerson } from './room-people.js';
export {
  ROOM_NAME_MAX,
  countRoomMembers,
  createChannel,
  createRoomSchema,
  feedbackForRoom,
  findRoomSeat,
  joinRoom,
  leaveRoom,
  listRooms,
  roomAccess,
  roomLabel,
  roomsWithSeats,
  toRoomName,
  usersWhoCan,
  usersWhoCanOpen,
} from './rooms.js';
export type { RoomAccess, RoomListItem, RoomSeat } from './rooms.js';
