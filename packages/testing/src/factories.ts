import { generateSecret, hashSecret, hashPassword, newId, visiblePrefix } from '@ferry/core';
import type {
  ApiToken,
  Db,
  ErrorGroup,
  ErrorOccurrence,
  Feedback,
  Member,
  Message,
  Role,
  Room,
  RoomKind,
  TokenScope,
  User,
  Visitor,
  Workspace,
} from '@ferry/db';

/**
 * Factories insert real rows with sensible defaults; each takes overrides. They write straight to
 * the tables (not through domain code) so a test can set up any state, including odd ones.
 */
let counter = 0;
const unique = (): string => `${Date.now().toString(36)}${(counter++).toString(36)}`;

// Hashing with scrypt is slow on purpose; factories share one hash of the default password.
export const DEFAULT_PASSWORD = 'correct horse battery staple';
let defaultHash: Promise<string> | undefined;

export async function createUser(
  db: Db,
  overrides: Partial<Omit<User, 'password_hash'>> & { password?: string } = {},
): Promise<User & { password: string }> {
  const password = overrides.password ?? DEFAULT_PASSWORD;
  const password_hash =
    password === DEFAULT_PASSWORD
      ? await (defaultHash ??= hashPassword(DEFAULT_PASSWORD))
      : await hashPassword(password);
  const id = unique();
  const user = await db
    .insertInto('users')
    .values({
      id: overrides.id ?? newId('user'),
      email: overrides.email ?? `user-${id}@example.test`,
      name: overrides.name ?? `User ${id}`,
      password_hash,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { ...user, password };
}

export async function createWorkspace(
  db: Db,
  overrides: Partial<Workspace> = {},
): Promise<Workspace> {
  const id = unique();
  return db
    .insertInto('workspaces')
    .values({
      id: overrides.id ?? newId('workspace'),
      slug: overrides.slug ?? `ws-${id}`,
      name: overrides.name ?? `Workspace ${id}`,
      public_key: overrides.public_key ?? `pk_${id}${unique()}`,
      settings: JSON.stringify(overrides.settings ?? {}),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function createMember(
  db: Db,
  workspace: Pick<Workspace, 'id'>,
  overrides: { user?: Pick<User, 'id'>; role?: Role; left?: boolean } = {},
): Promise<Member & { user: User & { password: string } }> {
  const user = overrides.user
    ? await db
        .selectFrom('users')
        .selectAll()
        .where('id', '=', overrides.user.id)
        .executeTakeFirstOrThrow()
    : await createUser(db);
  const member = await db
    .insertInto('members')
    .values({
      id: newId('member'),
      workspace_id: workspace.id,
      user_id: user.id,
      role: overrides.role ?? 'member',
      left_at: overrides.left ? new Date() : null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return {
    ...member,
    user: { ...user, password: 'password' in user ? String(user.password) : DEFAULT_PASSWORD },
  };
}

export async function createRoom(
  db: Db,
  workspace: Pick<Workspace, 'id'>,
  overrides: {
    name?: string;
    kind?: RoomKind;
    createdBy?: Pick<Member, 'id'>;
    members?: Pick<Member, 'id'>[];
  } = {},
): Promise<Room> {
  const room = await db
    .insertInto('rooms')
    .values({
      id: newId('room'),
      workspace_id: workspace.id,
      kind: overrides.kind ?? 'channel',
      name: overrides.name ?? `room-${unique()}`,
      created_by: overrides.createdBy?.id ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  for (const member of overrides.members ?? []) await joinRoom(db, room, member);
  return room;
}

export async function joinRoom(
  db: Db,
  room: Pick<Room, 'id'>,
  member: Pick<Member, 'id'>,
): Promise<void> {
  await db
    .insertInto('room_members')
    .values({ room_id: room.id, member_id: member.id, left_at: null })
    .onConflict((oc) => oc.columns(['room_id', 'member_id']).doUpdateSet({ left_at: null }))
    .execute();
}

export async function createMessage(
  db: Db,
  room: Pick<Room, 'id' | 'workspace_id'>,
  overrides: Partial<Omit<Message, 'metadata'>> & { metadata?: Record<string, unknown> } = {},
): Promise<Message> {
  return db
    .insertInto('messages')
    .values({
      id: overrides.id ?? newId('message'),
      room_id: room.id,
      workspace_id: room.workspace_id,
      author_kind: overrides.author_kind ?? 'system',
      author_member_id: overrides.author_member_id ?? null,
      author_ref: overrides.author_ref ?? null,
      display_name: overrides.display_name ?? 'Ferry',
      body: overrides.body ?? `Message ${unique()}`,
      kind: overrides.kind ?? 'text',
      metadata: JSON.stringify(overrides.metadata ?? {}),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function createFeedback(
  db: Db,
  workspace: Pick<Workspace, 'id'>,
  overrides: Partial<Omit<Feedback, 'partials'>> & { partials?: string[] } = {},
): Promise<Feedback> {
  const room = await createRoom(db, workspace, {
    kind: 'conversation',
    name: 'Feedback conversation',
  });
  return db
    .insertInto('feedback')
    .values({
      id: overrides.id ?? newId('feedback'),
      workspace_id: workspace.id,
      room_id: overrides.room_id ?? room.id,
      status: overrides.status ?? 'new',
      title: overrides.title ?? 'Checkout button does nothing',
      note: overrides.note ?? 'Clicking Pay does nothing on Safari.',
      reporter_label: overrides.reporter_label ?? 'Ada',
      reporter_role: overrides.reporter_role ?? 'customer',
      reporter_email: overrides.reporter_email ?? 'ada@example.test',
      page_url: overrides.page_url ?? 'https://app.example.test/checkout',
      page_path: overrides.page_path ?? '/checkout',
      controller_action: overrides.controller_action ?? 'checkout#show',
      viewport_width: overrides.viewport_width ?? 1280,
      viewport_height: overrides.viewport_height ?? 800,
      partials: JSON.stringify(overrides.partials ?? ['layouts/_nav', 'checkout/_form']),
      element_selector: overrides.element_selector ?? 'button#pay',
      element_tag: overrides.element_tag ?? 'button',
      element_text: overrides.element_text ?? 'Pay',
      element_outer_html: overrides.element_outer_html ?? '<button id="pay">Pay</button>',
      assignee_member_id: overrides.assignee_member_id ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function createApiToken(
  db: Db,
  workspace: Pick<Workspace, 'id'>,
  overrides: {
    scopes?: TokenScope[];
    name?: string;
    revoked?: boolean;
    createdBy?: Pick<Member, 'id'>;
  } = {},
): Promise<ApiToken & { raw: string }> {
  const raw = generateSecret('fry');
  const token = await db
    .insertInto('api_tokens')
    .values({
      id: newId('apiToken'),
      workspace_id: workspace.id,
      name: overrides.name ?? `token-${unique()}`,
      scopes: overrides.scopes ?? ['tenant:write'],
      token_hash: hashSecret(raw),
      prefix: visiblePrefix(raw),
      created_by: overrides.createdBy?.id ?? null,
      revoked_at: overrides.revoked ? new Date() : null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { ...token, raw };
}

/** A visitor, stored as the app stores one (hash and prefix); `token` is the raw value to send. */
export async function createVisitor(
  db: Db,
  workspace: Pick<Workspace, 'id'>,
  overrides: Partial<Omit<Visitor, 'token_hash' | 'token_prefix'>> & { token?: string } = {},
): Promise<Visitor & { token: string }> {
  const token = overrides.token ?? `vt_${unique()}`;
  const visitor = await db
    .insertInto('visitors')
    .values({
      id: overrides.id ?? newId('visitor'),
      workspace_id: workspace.id,
      token_hash: hashSecret(token),
      token_prefix: visiblePrefix(token),
      name: overrides.name ?? 'Visitor',
      email: overrides.email ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { ...visitor, token };
}

export async function createOutboxEvent(
  db: Db,
  overrides: { type?: string; payload?: unknown; sent?: boolean } = {},
): Promise<{ id: string; seq: string }> {
  return db
    .insertInto('outbox')
    .values({
      id: newId('outbox'),
      type: overrides.type ?? 'test_event',
      payload: JSON.stringify(overrides.payload ?? {}),
      sent_at: overrides.sent ? new Date() : null,
    })
    .returning(['id', 'seq'])
    .executeTakeFirstOrThrow();
}

export async function createErrorGroup(
  db: Db,
  workspace: Pick<Workspace, 'id'>,
  overrides: Partial<Omit<ErrorGroup, 'occurrence_count'>> & { occurrence_count?: number } = {},
): Promise<ErrorGroup> {
  const now = new Date();
  return db
    .insertInto('error_groups')
    .values({
      id: overrides.id ?? newId('errorGroup'),
      workspace_id: workspace.id,
      fingerprint: overrides.fingerprint ?? `fp-${unique()}`,
      error_class: overrides.error_class ?? 'RuntimeError',
      latest_message: overrides.latest_message ?? 'Something broke',
      source: overrides.source ?? 'ruby',
      occurrence_count: overrides.occurrence_count ?? 1,
      first_seen_at: overrides.first_seen_at ?? now,
      last_seen_at: overrides.last_seen_at ?? now,
      status: overrides.status ?? 'unresolved',
      status_changed_at: overrides.status_changed_at ?? null,
      regressed_at: overrides.regressed_at ?? null,
      environments: overrides.environments ?? [],
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Inserts the row only: the group's count and seen times are left as the test set them. */
export async function createErrorOccurrence(
  db: Db,
  group: Pick<ErrorGroup, 'id' | 'workspace_id' | 'error_class' | 'latest_message' | 'source'>,
  overrides: Partial<ErrorOccurrence> = {},
): Promise<ErrorOccurrence> {
  const now = new Date();
  return db
    .insertInto('error_occurrences')
    .values({
      id: overrides.id ?? newId('errorOccurrence'),
      workspace_id: group.workspace_id,
      group_id: group.id,
      visitor_id: overrides.visitor_id ?? null,
      error_class: overrides.error_class ?? group.error_class,
      message: overrides.message ?? group.latest_message,
      backtrace: overrides.backtrace ?? ['app/models/order.rb:42:in `charge`'],
      url: overrides.url ?? null,
      request_method: overrides.request_method ?? null,
      request_path: overrides.request_path ?? null,
      environment: overrides.environment ?? 'production',
      app_version: overrides.app_version ?? null,
      context: JSON.stringify(overrides.context ?? {}),
      source: overrides.source ?? group.source,
      occurred_at: overrides.occurred_at ?? now,
      received_at: overrides.received_at ?? now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}
