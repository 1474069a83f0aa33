import type { WebDeps } from '../../deps.js';
import { flash, renderPage, seat } from '../../shared/request-context.js';
import { widgetPreviewPage, widgetSettingsPage, widgetSettingsPath } from './views.js';
import { routeTable, type RouteTable } from '@ferry/http';
import { saveWidgetSettings, WIDGET_SETTINGS_TTL_MS, widgetSettingsOf } from '@ferry/workspace';
import { capability } from '../../shared/access.js';

/** Settings > Widget ({base}/settings/widget) and its live preview (admins: 'settings.manage'). */
export function widgetSettingsRoutes(deps: WebDeps): RouteTable {
  const routes = routeTable();

  routes.get('/', capability('settings.manage'), async (req, res) => {
    const { workspace } = seat(res);
    await renderPage(req, res, (ctx) =>
      widgetSettingsPage(ctx, {
        workspace,
        publicUrl: deps.config.PUBLIC_URL,
        settings: widgetSettingsOf(workspace.settings),
      }),
    );
  });

  // The capture switch (issue 45): a checkbox, so absent means off.
  routes.post('/capture', capability('settings.manage'), async (req, res) => {
    const { workspace } = seat(res);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const { capture } = await saveWidgetSettings(deps.db, workspace.id, {
      capture: body.capture === 'on',
    });
    // The widget's config answer is cached for a minute by browsers, and briefly by the server.
    const within = 60 + Math.round(WIDGET_SETTINGS_TTL_MS / 1000);
    flash(
      req,
      'ok',
      capture
        ? `Console and network activity will be attached to feedback. Pages may take up to ${within} seconds to start (browsers keep the widget's settings that long).`
        : `Console and network activity will no longer be attached; widgets already open stop within ${within} seconds.`,
    );
    res.redirect(303, widgetSettingsPath(workspace));
  });

  routes.get('/preview', capability('settings.manage'), (_req, res) => {
    const { workspace } = seat(res);
    res.type('html').send(String(widgetPreviewPage({ workspace })));
  });

  return routes;
}
