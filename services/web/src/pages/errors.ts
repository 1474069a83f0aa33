import { Router } from 'express';
import { AppError } from '@ferry/core';
import type { ErrorSource } from '@ferry/db';
import {
  findErrorGroup,
  isErrorSource,
  latestOccurrences,
  listErrorGroups,
  retainedOccurrences,
} from '@ferry/workspace';
import type { WebDeps } from '../deps.js';
import { requireCapability, renderPage, seat } from '../request-context.js';
import { errorGroupPage, errorListPage, errorSettingsPage } from '../views/errors.js';
import { pageParam } from '../views/pager.js';

/**
 * Query values on a page are forgiving, as on the feedback inbox: an unknown source shows all
 * sources and a junk page number shows the first page, rather than an error page. The API is
 * strict instead (422), since a program should learn its query is wrong.
 */
function sourceParam(value: unknown): ErrorSource | undefined {
  return isErrorSource(value) ? value : undefined;
}

export function errorRoutes({ db, config }: WebDeps): Router {
  const router = Router({ mergeParams: true });
  router.use(requireCapability('errors.read'));

  router.get('/', async (req, res) => {
    const { workspace } = seat(res);
    const source = sourceParam(req.query.source);
    const page = pageParam(req.query.page);
    const [list, retained] = await Promise.all([
      listErrorGroups(db, workspace.id, { page, source }),
      retainedOccurrences(db, workspace.id),
    ]);
    renderPage(req, res, (ctx) =>
      errorListPage(ctx, {
        workspace,
        publicUrl: config.PUBLIC_URL,
        source,
        page,
        pages: list.pages,
        groups: list.groups,
        counts: list.counts,
        retained,
      }),
    );
  });

  router.get('/:groupId', async (req, res) => {
    const { workspace } = seat(res);
    const group = await findErrorGroup(db, workspace.id, req.params.groupId);
    if (!group) throw new AppError('not_found', 'No such error group in this workspace.');
    const occurrences = await latestOccurrences(db, group);
    renderPage(req, res, (ctx) => errorGroupPage(ctx, { workspace, group, occurrences }));
  });

  return router;
}

/** /settings/errors: the public key and a ready report, for anyone who may read errors. */
export function errorSettingsRoutes({ config }: WebDeps): Router {
  const router = Router({ mergeParams: true });
  router.use(requireCapability('errors.read'));
  router.get('/', (req, res) => {
    const { workspace } = seat(res);
    renderPage(req, res, (ctx) =>
      errorSettingsPage(ctx, {
        workspace,
        publicUrl: config.PUBLIC_URL,
      }),
    );
  });
  return router;
}
