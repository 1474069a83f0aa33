import type { Workspace } from '@ferry/db';

/**
 * Select these when joining `workspaces` onto another table's row, then `splitWorkspace` takes the
 * workspace back out: one query for "this row and its workspace" wherever that is needed.
 */
export const workspaceJoinColumns = [
  'workspaces.id as ws_id',
  'workspaces.slug as ws_slug',
  'workspaces.name as ws_name',
  'workspaces.public_key as ws_public_key',
  'workspaces.settings as ws_settings',
  'workspaces.dispatch_member_id as ws_dispatch_member_id',
  'workspaces.created_at as ws_created_at',
] as const;

interface WorkspaceJoinRow {
  ws_id: string;
  ws_slug: string;
  ws_name: string;
  ws_public_key: string;
  ws_settings: Workspace['settings'];
  ws_dispatch_member_id: string | null;
  ws_created_at: Date;
}

export function splitWorkspace<R extends WorkspaceJoinRow>(
  row: R,
): { workspace: Workspace; rest: Omit<R, keyof WorkspaceJoinRow> } {
  const {
    ws_id,
    ws_slug,
    ws_name,
    ws_public_key,
    ws_settings,
    ws_dispatch_member_id,
    ws_created_at,
    ...rest
  } = row;
  return {
    workspace: {
      id: ws_id,
      slug: ws_slug,
      name: ws_name,
      public_key: ws_public_key,
      settings: ws_settings,
      dispatch_member_id: ws_dispatch_member_id,
      created_at: ws_created_at,
    },
    rest,
  };
}
