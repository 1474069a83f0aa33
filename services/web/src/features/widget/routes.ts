import type { WebDeps } from '../../deps.js';
import { renderPage, seat } from '../../shared/request-context.js';
import { widgetPreviewPage, widgetSettingsPage } from './views.js';
import { routeTable, type RouteTable } from '@ferry/http';
import { capability } from '../../shared/access.js';

/** Settings > Widget ({base}/settings/widget) and its live preview (admins: 'settings.manage'). */
export function widgetSettingsRoutes(deps: WebDeps): RouteTable {
  const routes = routeTable();

  routes.get('/', capability('settings.manage'), async (req, res) => {
    const { workspace } = seat(res);
    await renderPage(req, res, (ctx) =>
      widgetSettingsPage(ctx, { workspace, publicUrl: deps.config.PUBLIC_URL }),
    );
  });

  routes.get('/preview', capability('settings.manage'), (_req, res) => {
    const { workspace } = seat(res);
    res.type('html').send(String(widgetPreviewPage({ workspace })));
  });

  return routes;
}
