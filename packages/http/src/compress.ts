import type { ServerResponse } from 'node:http';
import compression from 'compression';
import type { Request, RequestHandler, Response } from 'express';

/**
 * Response compression (gzip, deflate or brotli, whichever the client prefers) through the
 * maintained `compression` middleware: pages, JSON and the widget bundle (22 KB -> ~8 KB gzipped).
 *
 * Left alone: Server-Sent Events (an agent's stream must reach it event by event, never held in a
 * compressor's buffer), bodies under 1 KB, and whatever the `compression` filter itself refuses
 * (`Cache-Control: no-transform`, incompressible types).
 *
 * ETags: a strong ETag names exact bytes, and the compressed bytes differ from the plain ones, so
 * a compressed answer's strong ETag is made weak (`W/"…"`), as nginx does. If-None-Match compares
 * weakly (Express's `req.fresh`), so revalidation still answers 304 for either form.
 */
export function compressResponses(): RequestHandler {
  const compress = compression({
    filter: (req: Request, res: Response) => {
      const type = String(res.getHeader('Content-Type') ?? '');
      if (type.startsWith('text/event-stream')) return false;
      return compression.filter(req, res);
    },
  });
  return (req, res, next) => {
    weakenEtagWhenEncoded(res);
    compress(req, res, next);
  };
}

/**
 * Runs just before the headers go out, after `compression` (registered later, so wrapped around
 * this) has decided on a Content-Encoding.
 */
function weakenEtagWhenEncoded(res: ServerResponse): void {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = (...args: unknown[]) => {
    const encoding = res.getHeader('Content-Encoding');
    const etag = res.getHeader('ETag');
    if (encoding && encoding !== 'identity' && typeof etag === 'string' && !etag.startsWith('W/')) {
      res.setHeader('ETag', `W/${etag}`);
    }
    return writeHead(...args);
  };
}
