import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type RawBuilder } from 'kysely';
import { newId } from '@ferry/core';
import type { Role, User } from '@ferry/db';
import { declaredRoutes, MUTATING, type DeclaredRoute } from '@ferry/http';
import {
  createApiToken,
  createErrorGroup,
  createFeedback,
  createMember,
  createRoom,
  createUser,
  createWorkspace,
} from '@ferry/testing';
import { FakeGitHub } from '@ferry/testing/fake-github';
import {
  can,
  createIncomingKey,
  createInvite,
  createEndpoint,
  createOutgoingHook,
  mergeErrorGroups,
  registerAgent,
  type Capability,
} from '@ferry/workspace';
import { apiTables, pageTables } from '../src/routes.js';
import type { Realtime } from '../src/shared/realtime.js';
import { FormClient, startWeb, type WebHarness } from './harness.js';

/**
 * The role × action matrix (#20), generated from the route table: every mutating page route (and
 * every GET declared as writing) is called by a signed-out visitor, an outsider (a seat in another
 * workspace), and each role. A refusal must be 401/403/404 and leave the database exactly as it
 * was; the lowest role the rule allows must get through (2xx/3xx). A route added to the table
 * without an example here fails the first test, so the matrix always covers the whole table.
 */

const ROLES_LOW_TO_HIGH: readonly Role[] = ['guest', 'member', 'admin', 'owner'];
type Actor = 'signed out' | 'outsider' | Role;

/** One workspace's fixtures, made fresh for each route so an allowed call cannot spoil the next. */
interface World {
  workspace: { id: string; slug: string };
  seats: Record<Role, { id: string }>;
  /** #general: every seat is in it (the guest was added). */
  general: { id: string };
  /** #random: only the owner is in it (a channel the others may join; the guest may not see it). */
  random: { id: string };
  /** A member in no room, for "add to room". */
  spare: { id: string };
  keyId: string;
  hookId: string;
  deliveryId: string;
  inviteId: string;
  tokenId: string;
  feedbackId: string;
  groupId: string;
  /** Issue 43: a second group, for the API's merge; `groupId` holds MERGED_FINGERPRINT. */
  mergeSourceId: string;
  agentId: string;
  repoId: string;
  jobId: string;
  /** An error alert rule (issue 43): no room, no URL. */
  ruleId: string;
  /** An event webhook endpoint (issue 44) and one of its deliveries. */
  endpointId: string;
  endpointDeliveryId: string;
}

interface Example {
  params?: (w: World) => Record<string, string>;
  body?: (w: World) => Record<string, string>;
  /** For `self` rules, which the domain decides: the roles that may. */
  allowed?: readonly Role[];
  /** An allowed call's status when the business rule (not authorization) answers it. */
  allowedStatus?: number;
}

/** A fingerprint merged into each world's group (issue 43), for the unmerge routes. */
const MERGED_FINGERPRINT = 'matrix-merged-fingerprint';

/** How to call each mutating route, keyed `METHOD pattern`; the table's params come from World. */
const EXAMPLES: Record<string, Example> = {
  'POST /w/:workspaceId/:slug/members': {
    body: () => ({ email: 'nobody@example.test', role: 'member' }),
    allowedStatus: 303, // past the door, refused by validation: back to the list (#42)
  },
  'POST /w/:workspaceId/:slug/members/invites': {
    body: () => ({ role: 'member', expires_in_days: '7' }),
  },
  'POST /w/:workspaceId/:slug/members/invites/:inviteId/revoke': {},
  // The attack from #20: a guest raising themselves; others' roles need members.manage.
  'POST /w/:workspaceId/:slug/members/:memberId/role': {
    params: (w) => ({ memberId: w.seats.guest.id }),
    body: () => ({ role: 'member' }),
    allowed: ['admin', 'owner'],
  },
  // The guest removing the guest is leaving: allowed; a member may not remove anyone else.
  'POST /w/:workspaceId/:slug/members/:memberId/remove': {
    params: (w) => ({ memberId: w.seats.guest.id }),
    allowed: ['guest', 'admin', 'owner'],
  },
  'POST /w/:workspaceId/:slug/rooms/:roomId/settings/webhooks/incoming': {
    body: () => ({ name: 'CI' }),
  },
  'POST /w/:workspaceId/:slug/rooms/:roomId/settings/webhooks/incoming/:keyId/reveal': {},
  'POST /w/:workspaceId/:slug/rooms/:roomId/settings/webhooks/incoming/:keyId/rotate': {},
  'POST /w/:workspaceId/:slug/rooms/:roomId/settings/webhooks/incoming/:keyId/enable': {},
  'POST /w/:workspaceId/:slug/rooms/:roomId/settings/webhooks/incoming/:keyId/disable': {},
  'POST /w/:workspaceId/:slug/rooms/:roomId/settings/webhooks/incoming/:keyId/delete': {},
  'POST /w/:workspaceId/:slug/rooms/:roomId/settings/webhooks/incoming/:keyId/github-secret': {
    body: () => ({ github_secret: 'matrix-secret' }),
  },
  'POST /w/:workspaceId/:slug/rooms/:roomId/settings/webhooks/incoming/:keyId/github-secret/remove':
    {},
  'POST /w/:workspaceId/:slug/rooms/:roomId/settings/webhooks/outgoing': {
    body: () => ({ target_url: 'https://hooks.example.test/in' }),
  },
  'POST /w/:workspaceId/:slug/rooms/:roomId/settings/webhooks/outgoing/:hookId/reveal': {},
  'POST /w/:workspaceId/:slug/rooms/:roomId/settings/webhooks/outgoing/:hookId/rotate': {},
  'POST /w/:workspaceId/:slug/rooms/:roomId/settings/webhooks/outgoing/:hookId/enable': {},
  'POST /w/:workspaceId/:slug/rooms/:roomId/settings/webhooks/outgoing/:hookId/disable': {},
  'POST /w/:workspaceId/:slug/rooms/:roomId/settings/webhooks/outgoing/:hookId/delete': {},
  'POST /w/:workspaceId/:slug/rooms/:roomId/settings/webhooks/outgoing/:hookId/test': {},
  'POST /w/:workspaceId/:slug/rooms/:roomId/settings/webhooks/outgoing/:hookId/deliveries/:deliveryId/resend':
    {},
  'POST /w/:workspaceId/:slug/rooms/:roomId/people': { body: (w) => ({ member_id: w.spare.id }) },
  'POST /w/:workspaceId/:slug/rooms': { body: () => ({ name: 'matrix-room' }) },
  // A channel the seat is not in: members and up may join; a guest cannot even see it.
  'POST /w/:workspaceId/:slug/rooms/:roomId/join': {
    params: (w) => ({ roomId: w.random.id }),
    allowed: ['member', 'admin', 'owner'],
  },
  'POST /w/:workspaceId/:slug/rooms/:roomId/leave': { allowed: ROLES_LOW_TO_HIGH },
  'POST /w/:workspaceId/:slug/rooms/:roomId/messages': {
    body: () => ({ body: 'hello' }),
    allowed: ROLES_LOW_TO_HIGH,
  },
  'POST /w/:workspaceId/:slug/settings/tokens': {
    body: () => ({ name: 'matrix', scopes: 'tenant:read' }),
  },
  'POST /w/:workspaceId/:slug/settings/tokens/:tokenId/revoke': {},
  'POST /w/:workspaceId/:slug/settings/error-alerts': { body: () => ({ new_group: 'on' }) },
  'POST /w/:workspaceId/:slug/settings/errors/scrubbing': {
    body: () => ({ extra_keys: 'iban', keep_ip: 'on' }),
  },
  // Issue 45: the widget's capture switch (admins: settings.manage).
  'POST /w/:workspaceId/:slug/settings/widget/capture': { body: () => ({ capture: 'on' }) },
  'POST /w/:workspaceId/:slug/settings/errors/fingerprint-rules': {
    body: () => ({ rules: 'error.type:Matrix* -> matrix' }),
  },
  'POST /w/:workspaceId/:slug/settings/errors/fingerprint-rules/test': {
    body: () => ({ rules: 'error.type:Matrix* -> matrix' }),
  },
  // Issue 43: the world's rule (no URL: reveal answers with a redirect back to its page).
  'POST /w/:workspaceId/:slug/settings/error-alerts/rules/:ruleId': {
    body: () => ({ name: 'matrix', regression: 'on' }),
  },
  'POST /w/:workspaceId/:slug/settings/error-alerts/rules/:ruleId/delete': {},
  'POST /w/:workspaceId/:slug/settings/error-alerts/rules/:ruleId/reveal': {},
  // Issue 44: event webhook endpoints.
  'POST /w/:workspaceId/:slug/settings/event-webhooks': {
    body: () => ({ url: 'https://hooks.example.test/events', event_types: 'feedback.created' }),
  },
  'POST /w/:workspaceId/:slug/settings/event-webhooks/endpoints/:endpointId': {
    body: () => ({ url: 'https://hooks.example.test/events', event_types: 'feedback.triaged' }),
  },
  'POST /w/:workspaceId/:slug/settings/event-webhooks/endpoints/:endpointId/reveal': {},
  'POST /w/:workspaceId/:slug/settings/event-webhooks/endpoints/:endpointId/rotate': {
    body: () => ({ overlap_hours: '1' }),
  },
  'POST /w/:workspaceId/:slug/settings/event-webhooks/endpoints/:endpointId/enable': {},
  'POST /w/:workspaceId/:slug/settings/event-webhooks/endpoints/:endpointId/disable': {},
  'POST /w/:workspaceId/:slug/settings/event-webhooks/endpoints/:endpointId/delete': {},
  'POST /w/:workspaceId/:slug/settings/event-webhooks/endpoints/:endpointId/test': {},
  'POST /w/:workspaceId/:slug/settings/event-webhooks/endpoints/:endpointId/recover': {
    body: () => ({ since: '2026-01-01T00:00' }),
  },
  'POST /w/:workspaceId/:slug/settings/event-webhooks/endpoints/:endpointId/deliveries/:deliveryId/resend':
    { params: (w) => ({ deliveryId: w.endpointDeliveryId }) },
  // Authorized, then refused by the flow: the clicker has not authorized GitHub (back to the
  // ticket, 303, #42).
  'POST /w/:workspaceId/:slug/feedback/:feedbackId/dispatch': {
    body: (w) => ({ repo: w.repoId }),
    allowedStatus: 303,
  },
  'POST /w/:workspaceId/:slug/feedback/:feedbackId/triage': { body: () => ({ status: 'triaged' }) },
  // Issue 45: linking a ticket and an error group is the ticket's triage, from either page.
  'POST /w/:workspaceId/:slug/feedback/:feedbackId/errors': { body: (w) => ({ group: w.groupId }) },
  'POST /w/:workspaceId/:slug/feedback/:feedbackId/errors/:otherId/unlink': {
    params: (w) => ({ otherId: w.groupId }),
  },
  'POST /w/:workspaceId/:slug/errors/:groupId/tickets': {
    body: (w) => ({ ticket: w.feedbackId }),
  },
  'POST /w/:workspaceId/:slug/errors/:groupId/tickets/:otherId/unlink': {
    params: (w) => ({ otherId: w.feedbackId }),
  },
  'POST /w/:workspaceId/:slug/agents/settings/ship-policy': {
    body: () => ({ max_files: '3', max_lines: '60', always_reviewed: 'db/**' }),
  },
  // The Dispatch card's token button: tokens.manage, as on the API tokens page.
  'POST /w/:workspaceId/:slug/agents/dispatch-token': {},
  'POST /w/:workspaceId/:slug/agents/:agentId': { body: () => ({ name: 'matrix-agent' }) },
  'POST /w/:workspaceId/:slug/agents/:agentId/wake': {
    body: () => ({ wake_url: 'https://wake.example.test/', wake_token: 't' }),
  },
  'POST /w/:workspaceId/:slug/errors/:groupId/status': { body: () => ({ status: 'resolved' }) },
  'POST /w/:workspaceId/:slug/errors/:groupId/feedback': {},
  // Issue 43: bulk triage is triage, whatever the action.
  'POST /w/:workspaceId/:slug/errors/bulk': {
    body: (w) => ({ action: 'resolve', ids: w.groupId }),
  },
  // Issue 43: assigning is triage; whom (a seat that may read errors) is the domain's.
  'POST /w/:workspaceId/:slug/errors/:groupId/assignee': {
    body: (w) => ({ assignee_id: w.seats.member.id }),
    allowedStatus: 303,
  },
  'POST /w/:workspaceId/:slug/errors/:groupId/unmerge': {
    body: () => ({ fingerprint: MERGED_FINGERPRINT }),
    allowedStatus: 303,
  },
  'POST /w/:workspaceId/:slug/settings/github/connect': {},
  'POST /w/:workspaceId/:slug/settings/github/refresh': {},
  'POST /w/:workspaceId/:slug/settings/github/repos/:repoId': { body: () => ({ linked: 'true' }) },
  'POST /w/:workspaceId/:slug/settings/github/authorize': {},
  'POST /w/:workspaceId/:slug/settings/github/disconnect': {},
  'POST /w/:workspaceId/:slug/settings/github/identity': { body: () => ({ member_id: '' }) },
  'POST /w/:workspaceId/:slug/ops/jobs/:queue/:jobId/retry': {
    params: (w) => ({ queue: 'agent-wake', jobId: w.jobId }),
  },
  'POST /w/:workspaceId/:slug/onboarding/dismiss': {},
};

/** Routes outside the matrix: no seat to rank (sign-in, a link's own credential, OAuth returns). */
const NOT_ROLE_BASED = new Set(['public', 'user', 'key']);

// Every changing route, every refused actor, a digest of every table before and after each call:
// minutes on a loaded 2-core host. The bound is for a hang, not a speed.
const MATRIX_TIMEOUT_MS = 300_000;

describe('authorization matrix', () => {
  let web: WebHarness;
  let fake: FakeGitHub;
  let routes: DeclaredRoute[];
  const users = {} as Record<Role | 'outsider', User & { password: string }>;
  const clients = {} as Record<Actor, FormClient>;

  beforeAll(async () => {
    fake = await new FakeGitHub().start();
    web = await startWeb({
      ...fake.env(),
      ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
      // No webhooks-out runs here, so "Send test event" and "Resend" wait out their whole window
      // for an attempt that never comes (WEBHOOK_TIMEOUT_MS + 2 s): 24 s of this file at 10 s.
      WEBHOOK_TIMEOUT_MS: '100',
    });
    const tables = pageTables(web.deps, { leaveRoom: () => undefined } as unknown as Realtime);
    routes = declaredRoutes([...tables.open, ...tables.workspace]);
    for (const who of [...ROLES_LOW_TO_HIGH, 'outsider'] as const) {
      users[who] = await createUser(web.ctx.db, { name: `Matrix ${who}` });
    }
    // The outsider holds an owner's seat elsewhere: rights there mean nothing here.
    await createMember(web.ctx.db, await createWorkspace(web.ctx.db), {
      user: users.outsider,
      role: 'owner',
    });
    clients['signed out'] = new FormClient(web.url);
    for (const who of [...ROLES_LOW_TO_HIGH, 'outsider'] as const) {
      clients[who] = new FormClient(web.url);
      await clients[who].signIn(users[who].email, users[who].password);
    }
  });
  afterAll(async () => {
    await web?.close();
    await fake?.close();
  });

  const changing = () =>
    routes
      .filter((r) => MUTATING.includes(r.method) || r.writes)
      .filter((r) => !NOT_ROLE_BASED.has(r.access.kind));

  it('has an example for every route that changes anything, and nothing else', () => {
    const keys = changing().map((r) => `${r.method.toUpperCase()} ${r.pattern}`);
    expect(keys.filter((key) => !(key in EXAMPLES))).toEqual([]);
    expect(Object.keys(EXAMPLES).filter((key) => !keys.includes(key))).toEqual([]);
  });

  it('gives adding people to a room and the GitHub page capabilities of their own (not borrowed)', () => {
    const ruleOf = (method: string, pattern: string) =>
      routes.find((r) => r.method === method && r.pattern === pattern)?.access.rule;
    const w = '/w/:workspaceId/:slug';
    expect(ruleOf('post', `${w}/rooms/:roomId/people`)).toBe('rooms.manage_people');
    expect(ruleOf('get', `${w}/settings/github`)).toBe('github.authorize');
    expect(ruleOf('post', `${w}/settings/github/authorize`)).toBe('github.authorize');
    for (const action of ['connect', 'refresh', 'identity', 'repos/:repoId']) {
      expect(ruleOf('post', `${w}/settings/github/${action}`)).toBe('github.manage');
    }
    // Dispatching a ticket keeps its own capability; it no longer opens the GitHub settings.
    expect(ruleOf('post', `${w}/feedback/:feedbackId/dispatch`)).toBe('feedback.dispatch');
  });

  async function world(): Promise<World> {
    const db = web.ctx.db;
    const workspace = await createWorkspace(db);
    const seats = {} as Record<Role, { id: string }>;
    for (const role of ROLES_LOW_TO_HIGH) {
      seats[role] = await createMember(db, workspace, { user: users[role], role });
    }
    const spare = await createMember(db, workspace, { role: 'member' });
    const general = await createRoom(db, workspace, {
      name: 'general',
      members: ROLES_LOW_TO_HIGH.map((role) => seats[role]),
    });
    const random = await createRoom(db, workspace, { name: 'random', members: [seats.owner] });
    const { webhook } = await createIncomingKey(db, web.deps.box, {
      workspaceId: workspace.id,
      roomId: general.id,
      name: 'deploys',
      createdBy: seats.owner.id,
    });
    const { hook } = await createOutgoingHook(db, web.deps.box, {
      workspaceId: workspace.id,
      roomId: general.id,
      targetUrl: 'https://hooks.example.test/out',
      createdBy: seats.owner.id,
    });
    const delivery = await db
      .insertInto('webhook_deliveries')
      .values({
        id: newId('webhookDelivery'),
        hook_id: hook.id,
        message_id: null,
        event: 'message_created',
        body: '{}',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const { invite } = await createInvite(db, web.deps.box, {
      workspaceId: workspace.id,
      role: 'member',
      expiresInDays: 7,
      createdBy: seats.owner.id,
    });
    const token = await createApiToken(db, workspace, { createdBy: seats.owner });
    const feedback = await createFeedback(db, workspace);
    const group = await createErrorGroup(db, workspace);
    const mergeSource = await createErrorGroup(db, workspace);
    await mergeErrorGroups(db, {
      workspaceId: workspace.id,
      actor: { kind: 'api' },
      targetId: group.id,
      sourceIds: [(await createErrorGroup(db, workspace, { fingerprint: MERGED_FINGERPRINT })).id],
    });
    const agent = await registerAgent(db, {
      workspaceId: workspace.id,
      installId: `matrix-${Math.random().toString(36).slice(2, 10)}`,
      tokenId: token.id,
    });
    const repo = await db
      .insertInto('github_repos')
      .values({
        id: newId('githubRepo'),
        workspace_id: workspace.id,
        github_id: String(Math.floor(Math.random() * 1e9)),
        node_id: 'R_matrix',
        full_name: 'acme/shop',
        default_branch: 'main',
        linked: true,
        enabled: true,
        reachable: true,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const rule = await db
      .insertInto('error_alert_rules')
      .values({
        id: newId('errorAlertRule'),
        workspace_id: workspace.id,
        new_group: true,
        regression: false,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const { endpoint } = await createEndpoint(
      db,
      web.deps.box,
      workspace.id,
      {
        url: 'https://hooks.example.test/events',
        description: '',
        event_types: ['feedback.created'],
        environments: null,
        room_ids: null,
        max_per_second: null,
      },
      null,
    );
    const endpointDelivery = await db
      .insertInto('webhook_deliveries')
      .values({
        id: newId('webhookDelivery'),
        hook_id: endpoint.id,
        message_id: null,
        event: 'feedback.created',
        body: '{}',
        status: 'failed',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    // A waiting job of this workspace: retrying it is allowed and answers "no longer failed".
    const job = await web.deps.producer.queue('agent-wake').add('agent-wake', {
      workspaceId: workspace.id,
      agentId: agent.id,
    });
    return {
      workspace,
      seats,
      general,
      random,
      spare,
      keyId: webhook.id,
      hookId: hook.id,
      deliveryId: delivery.id,
      inviteId: invite.id,
      tokenId: token.id,
      feedbackId: feedback.id,
      groupId: group.id,
      mergeSourceId: mergeSource.id,
      agentId: agent.id,
      repoId: repo.id,
      jobId: String(job.id),
      ruleId: rule.id,
      endpointId: endpoint.id,
      endpointDeliveryId: endpointDelivery.id,
    };
  }

  function pathOf(route: DeclaredRoute, w: World, example: Example): string {
    const params: Record<string, string> = {
      workspaceId: w.workspace.id,
      slug: w.workspace.slug,
      roomId: w.general.id,
      keyId: w.keyId,
      hookId: w.hookId,
      deliveryId: w.deliveryId,
      inviteId: w.inviteId,
      tokenId: w.tokenId,
      feedbackId: w.feedbackId,
      groupId: w.groupId,
      agentId: w.agentId,
      repoId: w.repoId,
      ruleId: w.ruleId,
      endpointId: w.endpointId,
      ...example.params?.(w),
    };
    return route.pattern.replace(/:(\w+)/g, (_m, name: string) => {
      const value = params[name];
      if (!value) throw new Error(`no value for :${name} in ${route.pattern}`);
      return value;
    });
  }

  /**
   * Every table's rows, hashed: what a refused call must leave exactly as it was. One statement
   * for all tables (the table list is read once), so a digest is one round trip, not one a table.
   */
  let digestQuery: RawBuilder<{ table_name: string; h: string | null }> | undefined;
  async function digest(): Promise<Record<string, string>> {
    if (!digestQuery) {
      const tables = await sql<{ table_name: string }>`
        select table_name from information_schema.tables
        where table_schema = 'public' and table_type = 'BASE TABLE' and table_name not like 'kysely_%'
        order by table_name`.execute(web.ctx.db);
      const perTable = tables.rows.map(({ table_name }) => {
        // The relay marks outbox rows sent on its own schedule: their ids are what a call adds.
        const rows = table_name === 'outbox' ? sql`t.id` : sql`t::text`;
        return sql`(select ${table_name}::text as table_name,
          md5(string_agg(${rows}, ',' order by ${rows})) as h from ${sql.table(table_name)} t)`;
      });
      digestQuery = sql`${sql.join(perTable, sql` union all `)}`;
    }
    const result = await digestQuery.execute(web.ctx.db);
    return Object.fromEntries(result.rows.map((row) => [row.table_name, row.h ?? 'empty']));
  }

  function allowedRoles(route: DeclaredRoute, example: Example): readonly Role[] {
    if (route.access.kind === 'capability') {
      return ROLES_LOW_TO_HIGH.filter((role) => can(role, route.access.rule as Capability));
    }
    if (!example.allowed)
      throw new Error(
        `${route.pattern}: a "${route.access.kind}" rule needs allowed roles in its example`,
      );
    return example.allowed;
  }

  async function call(actor: Actor, route: DeclaredRoute, w: World, example: Example) {
    const client = clients[actor];
    const path = pathOf(route, w, example);
    const base = `/w/${w.workspace.id}/${w.workspace.slug}`;
    // A signed-out visitor and an outsider take their token from a page they may open.
    const csrfFrom =
      actor === 'signed out' ? '/login' : actor === 'outsider' ? '/workspaces' : base;
    const body = example.body?.(w) ?? {};
    if (route.method === 'get') return client.get(path);
    return client.post(path, { _csrf: await client.csrf(csrfFrom), ...body });
  }

  it(
    'refuses every actor the rule does not name, changing nothing, and lets the lowest one it names through',
    async () => {
      const failures: string[] = [];
      for (const route of changing()) {
        const key = `${route.method.toUpperCase()} ${route.pattern}`;
        const example = EXAMPLES[key]!;
        const allowed = allowedRoles(route, example);
        const w = await world();
        const refusedActors: Actor[] = [
          'signed out',
          'outsider',
          ...ROLES_LOW_TO_HIGH.filter((role) => !allowed.includes(role)),
        ];
        // A refused call leaves the state as it found it, so its "after" is the next "before".
        let before = await digest();
        for (const actor of refusedActors) {
          const answer = await call(actor, route, w, example);
          const after = await digest();
          // A refusal the domain explains (a role change, a removal) goes back to its list
          // (Post/Redirect/Get, #42), which says why: a refusal too, when nothing changed.
          const explained =
            answer.status === 303 &&
            (await clients[actor].follow(answer)).text.includes('class="flash error"');
          if (![401, 403, 404].includes(answer.status) && !explained) {
            failures.push(`${key} as ${actor}: ${answer.status}, expected a refusal`);
          }
          const changed = Object.keys(after).filter((table) => after[table] !== before[table]);
          if (changed.length) failures.push(`${key} as ${actor} changed ${changed.join(', ')}`);
          before = after;
        }
        const lowest = ROLES_LOW_TO_HIGH.find((role) => allowed.includes(role));
        if (lowest) {
          const answer = await call(lowest, route, w, example);
          const ok = example.allowedStatus
            ? answer.status === example.allowedStatus
            : answer.status >= 200 && answer.status < 400;
          if (!ok) failures.push(`${key} as ${lowest}: ${answer.status}, expected it allowed`);
        }
      }
      expect(failures).toEqual([]);
    },
    MATRIX_TIMEOUT_MS,
  );

  /** How to call each mutating API route with a token (the workspace's own ticket and group). */
  const API_EXAMPLES: Record<
    string,
    { path: (w: World) => string; body: Record<string, unknown> | ((w: World) => unknown) }
  > = {
    'POST /api/v1/feedback': { path: () => '/api/v1/feedback', body: { note: 'from the matrix' } },
    'PATCH /api/v1/feedback/:id': {
      path: (w) => `/api/v1/feedback/${w.feedbackId}`,
      body: { status: 'triaged' },
    },
    'POST /api/v1/errors/bulk': {
      path: () => '/api/v1/errors/bulk',
      body: { action: 'resolve', q: 'is:unresolved' },
    },
    'PATCH /api/v1/errors/:groupId': {
      path: (w) => `/api/v1/errors/${w.groupId}`,
      body: { status: 'resolved' },
    },
    'POST /api/v1/errors/:groupId/feedback': {
      path: (w) => `/api/v1/errors/${w.groupId}/feedback`,
      body: {},
    },
    'POST /api/v1/errors/merge': {
      path: () => '/api/v1/errors/merge',
      body: (w) => ({ target_id: w.groupId, group_ids: [w.mergeSourceId] }),
    },
    'POST /api/v1/errors/:groupId/unmerge': {
      path: (w) => `/api/v1/errors/${w.groupId}/unmerge`,
      body: { fingerprint: MERGED_FINGERPRINT },
    },
    'PUT /api/v1/error-alerts': {
      path: () => '/api/v1/error-alerts',
      body: { new_group: true },
    },
    'POST /api/v1/error-alerts/rules': {
      path: () => '/api/v1/error-alerts/rules',
      body: { name: 'matrix', new_group: true },
    },
    'PUT /api/v1/error-alerts/rules/:id': {
      path: (w) => `/api/v1/error-alerts/rules/${w.ruleId}`,
      body: { name: 'matrix', regression: true },
    },
    'DELETE /api/v1/error-alerts/rules/:id': {
      path: (w) => `/api/v1/error-alerts/rules/${w.ruleId}`,
      body: {},
    },
    'POST /api/v1/event-webhooks': {
      path: () => '/api/v1/event-webhooks',
      body: { url: 'https://hooks.example.test/events', event_types: ['feedback.created'] },
    },
    'PUT /api/v1/event-webhooks/:id': {
      path: (w) => `/api/v1/event-webhooks/${w.endpointId}`,
      body: { url: 'https://hooks.example.test/events', event_types: ['feedback.triaged'] },
    },
    'DELETE /api/v1/event-webhooks/:id': {
      path: (w) => `/api/v1/event-webhooks/${w.endpointId}`,
      body: {},
    },
  };

  it(
    'API: refuses a missing token and every scope but the one named, changing nothing',
    async () => {
      const api = declaredRoutes(apiTables(web.deps)).filter((r) => MUTATING.includes(r.method));
      const keys = api.map((r) => `${r.method.toUpperCase()} ${r.pattern}`);
      expect(keys.filter((key) => !(key in API_EXAMPLES))).toEqual([]);
      const failures: string[] = [];
      for (const route of api) {
        const key = `${route.method.toUpperCase()} ${route.pattern}`;
        const example = API_EXAMPLES[key]!;
        const w = await world();
        const tokenWith = async (scope: 'tenant:read' | 'tenant:write' | 'platform:dispatch') =>
          (await createApiToken(web.ctx.db, w.workspace, { scopes: [scope] })).raw;
        // Another workspace's write token: its own workspace's rights only.
        const foreign = (
          await createApiToken(web.ctx.db, await createWorkspace(web.ctx.db), {
            scopes: ['tenant:write'],
          })
        ).raw;
        const send = (token: string | undefined) =>
          fetch(`${web.url}${example.path(w)}`, {
            method: route.method.toUpperCase(),
            headers: {
              'content-type': 'application/json',
              ...(token ? { authorization: `Bearer ${token}` } : {}),
            },
            body: JSON.stringify(
              typeof example.body === 'function' ? example.body(w) : example.body,
            ),
          });
        const refused: Record<string, string | undefined> = {
          'no token': undefined,
          'a revoked token': (await createApiToken(web.ctx.db, w.workspace, { revoked: true })).raw,
          'tenant:read': await tokenWith('tenant:read'),
          'platform:dispatch': await tokenWith('platform:dispatch'),
          ...(route.pattern.includes(':') ? { 'another workspace': foreign } : {}),
        };
        expect(route.access).toMatchObject({ kind: 'scope', rule: 'tenant:write' });
        for (const [who, token] of Object.entries(refused)) {
          const before = await digest();
          const answer = await send(token);
          const after = await digest();
          if (![401, 403, 404].includes(answer.status)) {
            failures.push(`${key} with ${who}: ${answer.status}, expected a refusal`);
          }
          const changed = Object.keys(after).filter((table) => after[table] !== before[table]);
          // A refused call may record that the token was used (last_used_at), nothing else.
          const unexpected = changed.filter((table) => table !== 'api_tokens');
          if (unexpected.length)
            failures.push(`${key} with ${who} changed ${unexpected.join(', ')}`);
        }
        const allowed = await send(await tokenWith('tenant:write'));
        if (allowed.status < 200 || allowed.status >= 300) {
          failures.push(`${key} with tenant:write: ${allowed.status}, expected it allowed`);
        }
      }
      expect(failures).toEqual([]);
    },
    MATRIX_TIMEOUT_MS,
  );
});
