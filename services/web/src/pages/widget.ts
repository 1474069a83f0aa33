import { Router } from 'express';
import type { WebDeps } from '../deps.js';
import { renderPage, requireCapability, seat } from '../request-context.js';
import { widgetPreviewPage, widgetSettingsPage } from '../views/widget.js';

/** Settings > Widget ({base}/settings/widget) and its live preview (admins: 'settings.manage'). */
export function widgetSettingsRoutes(deps: WebDeps): Router {
  const router = Router({ mergeParams: true });
  router.use(requireCapability('settings.manage'));

  router.get('/', (req, res) => {
    const { workspace } = seat(res);
    renderPage(req, res, (ctx) =>
      widgetSettingsPage(ctx, { workspace, publicUrl: deps.config.PUBLIC_URL }),
    );
  });

  router.get('/preview', (_req, res) => {
    const { workspace } = seat(res);
    res.type('html').send(String(widgetPreviewPage({ workspace })));
  });

  return router;
}
