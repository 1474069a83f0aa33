import { sql } from 'kysely';
import { AppError } from '@ferry/core';
import type { Db, WorkspaceSettings } from '@ferry/db';

/**
 * Settings > Widget (issue 45): whether the widget attaches console and network activity to
 * feedback. Off unless an admin turns it on: capture reads what a customer's page does, and a
 * workspace opts into that knowingly. Stored in `workspaces.settings.widget`; the widget learns it
 * from GET /widget/v1/config.
 */
export interface WidgetSettings {
  capture: boolean;
}

export function widgetSettingsOf(settings: WorkspaceSettings | null | undefined): WidgetSettings {
  return { capture: settings?.widget?.capture === true };
}

/**
 * Turns capture on or off. Only `settings.widget` is written, merged in one statement, so a
 * setting saved beside it is kept. Who may call it is the route's `settings.manage`.
 */
export async function saveWidgetSettings(
  db: Db,
  workspaceId: string,
  value: WidgetSettings,
): Promise<WidgetSettings> {
  const widget: WidgetSettings = { capture: value.capture === true };
  const saved = await db
    .updateTable('workspaces')
    .set({
      settings: sql`coalesce(settings, '{}'::jsonb) || jsonb_build_object('widget', ${JSON.stringify(widget)}::jsonb)`,
    })
    .where('id', '=', workspaceId)
    .returning('id')
    .executeTakeFirst();
  if (!saved) throw new AppError('not_found', 'No such workspace.');
  return widget;
}

/** Workspace id -> its widget settings, kept briefly: every page view of a customer's site asks. */
export interface WidgetSettingsCache {
  settings(workspaceId: string): Promise<WidgetSettings>;
}

/** A change on the Widget page reaches widgets within this (plus their HTTP cache's minute). */
export const WIDGET_SETTINGS_TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;

export function createWidgetSettingsCache(
  db: Db,
  now: () => number = Date.now,
): WidgetSettingsCache {
  const entries = new Map<string, { value: WidgetSettings; expiresAt: number }>();
  return {
    async settings(workspaceId) {
      const hit = entries.get(workspaceId);
      if (hit && hit.expiresAt > now()) return hit.value;
      const row = await db
        .selectFrom('workspaces')
        .select('settings')
        .where('id', '=', workspaceId)
        .executeTakeFirst();
      const value = widgetSettingsOf(row?.settings);
      if (entries.size >= MAX_ENTRIES) entries.clear();
      entries.set(workspaceId, { value, expiresAt: now() + WIDGET_SETTINGS_TTL_MS });
      return value;
    },
  };
}
