import { AppError } from '@ferry/core';
import { routeTable, type RouteTable } from '@ferry/http';
import { findReadableFile, isInlineImage } from '@ferry/workspace';
import type { WebDeps } from '../../deps.js';
import { locals } from '../../shared/request-context.js';

/**
 * A file sent with a webhook's message (issue 44), for whoever may open its room right now
 * (findReadableFile applies the room page's own rule). Mounted among the open tables: signed out,
 * not in the room and no such file all answer the same 404, never a redirect to a login that
 * would tell the file exists.
 *
 * Never served as anything a browser runs: an image its magic bytes proved is sent as that image
 * type, inline; every other file as application/octet-stream, as a download. nosniff, a sandbox
 * CSP and same-origin CORP on top, so even a browser that ignored the type could not run it here.
 */

const NOT_FOUND = 'There is nothing at this address.';

/** Content-Disposition with the name as RFC 6266 asks: an ASCII fallback and the UTF-8 name. */
export function contentDisposition(kind: 'inline' | 'attachment', name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%;]/g, '_');
  const encoded = encodeURIComponent(name).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

export function messageFileRoutes(deps: WebDeps): RouteTable {
  const routes = routeTable();
  routes.get(
    '/:fileId',
    {
      kind: 'user',
      rule: "signed in and able to open the room of the file's message",
      checkedBy: 'findReadableFile (@ferry/workspace messages/files.ts)',
      enforce: [],
    },
    async (req, res) => {
      const user = locals(res).user;
      const file = user ? await findReadableFile(deps.db, user.id, req.params.fileId) : undefined;
      if (!file) throw new AppError('not_found', NOT_FOUND);
      const inline = isInlineImage(file.content_type);
      res.set({
        'Content-Type': file.content_type,
        'X-Content-Type-Options': 'nosniff',
        'Content-Disposition': contentDisposition(inline ? 'inline' : 'attachment', file.name),
        // A reader's own browser only: no shared cache keeps a copy past a deletion.
        'Cache-Control': 'private, no-store',
        'Cross-Origin-Resource-Policy': 'same-origin',
        'Content-Security-Policy': "default-src 'none'; sandbox",
        'Content-Length': String(file.bytes.length),
      });
      res.end(file.bytes);
    },
  );
  return routes;
}
