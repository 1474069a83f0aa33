import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { SecretBox } from '@ferry/core';
import {
  createDatabaseBefore,
  createErrorGroup,
  createMember,
  createRoom,
  createWorkspace,
} from '@ferry/testing';
import { errorAlertRuleJson, listErrorAlertRules, revealSigningSecret } from '@ferry/workspace';

/**
 * Issue 43 part 7's migration: a workspace's single alert rule (issue 26's shape) becomes its first
 * rule with every setting kept, its URL hook and signing secret included, and its cooldowns and
 * hourly count carried over to that rule.
 */
describe('error alert rules migration', () => {
  it('keeps an existing single rule as the first rule, as it was', async () => {
    const before = await createDatabaseBefore('2026_11_28_0700_error_alert_rules_many');
    try {
      const db = before.db;
      const box = new SecretBox('x'.repeat(64));
      const workspace = await createWorkspace(db);
      const admin = await createMember(db, workspace, { role: 'admin' });
      const room = await createRoom(db, workspace, { members: [admin], name: 'alerts' });
      const group = await createErrorGroup(db, workspace);
      const secret = 'whsec_' + Buffer.from('s'.repeat(24)).toString('base64');
      await sql`insert into outgoing_webhooks (id, workspace_id, room_id, owner, target_url,
          secret_sealed, state, consecutive_failures)
        values ('owh_old', ${workspace.id}, null, 'error_alerts', 'https://hooks.example/alerts',
          ${box.encrypt(secret)}, 'disabled', 20)`.execute(db);
      await sql`insert into error_alert_rules (workspace_id, room_id, new_group, regression,
          frequency_count, frequency_minutes, hook_id, environments, updated_by, updated_at)
        values (${workspace.id}, ${room.id}, true, false, 50, 5, 'owh_old',
          array['production', 'staging'], ${admin.id}, '2026-11-20T10:00:00Z')`.execute(db);
      await sql`insert into error_alert_state (group_id, trigger, last_alert_at)
        values (${group.id}, 'created', now())`.execute(db);
      await sql`insert into error_alert_windows (workspace_id, window_start, alerts, held_posted)
        values (${workspace.id}, date_trunc('hour', now()), 31, false)`.execute(db);

      await before.migrateToLatest();

      const rules = await listErrorAlertRules(db, workspace.id);
      expect(rules).toHaveLength(1);
      const json = errorAlertRuleJson(rules[0]!);
      expect(json).toEqual({
        id: expect.stringMatching(/^alr_/) as string,
        name: 'Error alerts',
        room_id: room.id,
        new_group: true,
        regression: false,
        frequency: { count: 50, minutes: 5 },
        url: 'https://hooks.example/alerts',
        url_state: 'disabled',
        environments: ['production', 'staging'],
        sources: null,
        levels: null,
        releases: null,
        tags: null,
        notify_member_ids: null,
        hand_to_agent: false,
        updated_at: '2026-11-20T10:00:00.000Z',
        created_at: expect.any(String) as string,
      });
      expect(rules[0]!.rule.updated_by).toBe(admin.id);
      expect(revealSigningSecret(box, rules[0]!.hook!)).toBe(secret);
      const state = await db.selectFrom('error_alert_state').selectAll().execute();
      expect(state).toEqual([
        expect.objectContaining({ group_id: group.id, rule_id: json.id, trigger: 'created' }),
      ]);
      const windows = await db.selectFrom('error_alert_windows').selectAll().execute();
      expect(windows).toEqual([
        expect.objectContaining({ rule_id: json.id, workspace_id: workspace.id, alerts: 31 }),
      ]);
    } finally {
      await before.close();
    }
  });
});
