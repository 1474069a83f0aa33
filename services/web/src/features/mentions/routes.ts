import {
  listMentions,
  markMentionsRead,
  MENTIONS_PAGE,
  workspaceMentionHandles,
} from '@ferry/workspace';
import type { WebDeps } from '../../deps.js';
import { locals, renderPage, seat } from '../../shared/request-context.js';
import { mentionsPage } from './views.js';
import { pageParam } from '../../shared/pager.js';
import { routeTable, type RouteTable } from '@ferry/http';
import { anySeat } from '../../shared/access.js';

/** `/mentions`: the viewer's mentions, newest first. Opening the list reads every mention. */
export function mentionRoutes({ db }: WebDeps): RouteTable {
  const routes = routeTable();

  routes.get('/', anySeat, async (req, res) => {
    const { workspace, member } = seat(res);
    const page = pageParam((req.query as Record<string, unknown>).page);
    const [{ items, total }, handles] = await Promise.all([
      listMentions(db, member, { page }),
      workspaceMentionHandles(db, workspace.id),
    ]);
    // What the sidebar counted (every unread mention, not only this page's) is what this reads.
    const unread = locals(res).unread;
    const newCount = Math.max(unread?.mentions ?? 0, items.filter((item) => item.unread).length);
    if (newCount) await markMentionsRead(db, member.id);
    if (unread) locals(res).unread = { ...unread, mentions: 0 };
    await renderPage(req, res, (ctx) =>
      mentionsPage(ctx, {
        workspace,
        items,
        handles,
        newCount,
        page,
        pages: Math.max(1, Math.ceil(total / MENTIONS_PAGE)),
      }),
    );
  });

  return routes;
}
