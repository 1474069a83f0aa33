import { LRUCache } from 'lru-cache';
import type { Db } from '@ferry/db';
import { CompactMap } from './compact-map.js';
import { DETAIL_LIMITS, type DetailFrame, type OccurrenceDetail } from './detail.js';

/**
 * Minified JavaScript frames mapped back to the source through the workspace's uploaded source
 * maps (issue 41; sentry-cli uploads them, services/ingest-errors sourcemaps/). The error writer
 * maps an event's frames before its fingerprint, so two builds of the same code group together;
 * the group page and the Errors API map what is still minified when read, so a map uploaded after
 * the event still shows (its grouping is not redone: the fingerprint is computed once).
 *
 * A frame's map is found by debug ID first (the event's debug_meta names the ID each minified file
 * was built with), else by release (and dist) + URL: `~/<path>` or the whole URL, the minified
 * file's `sourcemap` header leading to its map in the same bundle. Parsed maps sit in an LRU
 * bounded by the memory they hold (CompactMap); the writer remembers a miss for a minute, so a
 * burst of events without maps costs one lookup (the pages ask again after a few seconds).
 */

export interface Symbolicator {
  /** The detail with every frame that has a map mapped (and marked `minified`); the rest as sent. */
  symbolicate(workspaceId: string, detail: OccurrenceDetail): Promise<OccurrenceDetail>;
}

/** How long the writer trusts "no map": a burst of events without maps costs one lookup. */
const MISS_TTL_MS = 60_000;

export function createSymbolicator(
  db: Db,
  options: {
    maxCachedBytes?: number;
    /**
     * How long "no map for this frame" is remembered. The pages pass a few seconds: someone who
     * just uploaded a map and reloads the group page must see it at once.
     */
    missTtlMs?: number;
  } = {},
): Symbolicator {
  // Bounded by what the parsed maps hold in memory (CompactMap.bytes), not by their JSON. Room
  // for the largest map an upload may hold (40 MB a file) with others beside it: a map larger
  // than the bound would never stay cached, and be parsed again for every batch.
  const maps = new LRUCache<string, CompactMap>({
    maxSize: options.maxCachedBytes ?? 128 * 1024 * 1024,
    sizeCalculation: (map) => Math.max(1, map.bytes),
  });
  const misses = new LRUCache<string, true>({ max: 10_000, ttl: options.missTtlMs ?? MISS_TTL_MS });
  // Loads under way, by key: the writer maps a whole batch's events at once (up to 200 jobs), so
  // without this every event of a build that is not cached yet read and parsed the same map
  // (bench/RESULTS.md, issue 41: hundreds of copies of a 0.5 MB map, jobs past their timeout).
  const loading = new Map<string, Promise<CompactMap | undefined>>();

  async function fetchAndParse(key: string, find: () => Promise<Buffer | undefined>) {
    const content = await find();
    const loaded = content ? parseMap(content) : undefined;
    if (!loaded) {
      misses.set(key, true);
      return undefined;
    }
    maps.set(key, loaded);
    return loaded;
  }

  function load(key: string, find: () => Promise<Buffer | undefined>) {
    const cached = maps.get(key);
    if (cached) return Promise.resolve(cached);
    if (misses.has(key)) return Promise.resolve(undefined);
    let pending = loading.get(key);
    if (!pending) {
      pending = fetchAndParse(key, find).finally(() => loading.delete(key));
      loading.set(key, pending);
    }
    return pending;
  }

  async function mapFor(
    workspaceId: string,
    detail: OccurrenceDetail,
    file: string,
  ): Promise<CompactMap | undefined> {
    const debugId = detail.debug_images?.find((image) => image.code_file === file)?.debug_id;
    if (debugId) {
      const byId = await load(`${workspaceId}\0id\0${debugId}`, () =>
        mapByDebugId(db, workspaceId, debugId),
      );
      if (byId) return byId;
    }
    if (!detail.release) return undefined;
    const release = detail.release;
    return load(`${workspaceId}\0rel\0${release}\0${detail.dist ?? ''}\0${file}`, () =>
      mapByRelease(db, workspaceId, release, detail.dist, file),
    );
  }

  async function frame(
    workspaceId: string,
    detail: OccurrenceDetail,
    input: DetailFrame,
  ): Promise<DetailFrame> {
    if (input.minified || !input.file || input.line === undefined || input.column === undefined) {
      return input;
    }
    const loaded = await mapFor(workspaceId, detail, input.file);
    return loaded ? mapFrame(loaded, input) : input;
  }

  return {
    async symbolicate(workspaceId, detail) {
      const frames = async (list: DetailFrame[]) =>
        Promise.all(list.map((f) => frame(workspaceId, detail, f)));
      const mapped: OccurrenceDetail = { ...detail };
      if (detail.exceptions) {
        mapped.exceptions = await Promise.all(
          detail.exceptions.map(async (e) => ({ ...e, frames: await frames(e.frames) })),
        );
      }
      if (detail.frames) mapped.frames = await frames(detail.frames);
      return mapped;
    },
  };
}

function parseMap(content: Buffer): CompactMap | undefined {
  try {
    return new CompactMap(content.toString('utf8'));
  } catch {
    return undefined; // Not a source map after all: the frame stays minified.
  }
}

async function mapByDebugId(db: Db, workspaceId: string, debugId: string) {
  const row = await db
    .selectFrom('artifact_files')
    .select('content')
    .where('workspace_id', '=', workspaceId)
    .where('debug_id', '=', debugId)
    .where('kind', '=', 'source_map')
    .limit(1)
    .executeTakeFirst();
  return row?.content;
}

/**
 * The URLs a minified file can be stored under: sentry-cli's `~/path` (any scheme and host), and
 * the whole URL as the browser loaded it.
 */
function candidateUrls(file: string): string[] {
  try {
    const url = new URL(file);
    return [`~${url.pathname}`, file];
  } catch {
    return [file, file.startsWith('/') ? `~${file}` : `~/${file}`];
  }
}

/** A map's URL from the minified file's `sourcemap` header, relative to the file's own URL. */
function mapUrl(minifiedUrl: string, header: string | null): string {
  if (!header) return `${minifiedUrl}.map`;
  if (/^[a-z][a-z0-9+.-]*:/i.test(header) || header.startsWith('~/')) return header;
  const base = minifiedUrl.slice(0, minifiedUrl.lastIndexOf('/') + 1);
  const joined = header.startsWith('/') ? `~${header}` : `${base}${header}`;
  // Resolve ./ and ../ the way a browser would, keeping the `~` root.
  const parts: string[] = [];
  for (const part of joined.split('/')) {
    if (part === '.') continue;
    if (part === '..' && parts.length > 1) parts.pop();
    else parts.push(part);
  }
  return parts.join('/');
}

async function mapByRelease(
  db: Db,
  workspaceId: string,
  release: string,
  dist: string | undefined,
  file: string,
) {
  const minified = await db
    .selectFrom('artifact_files as f')
    .innerJoin('artifact_bundles as b', 'b.id', 'f.bundle_id')
    .select(['f.bundle_id', 'f.url', 'f.sourcemap'])
    .where('f.workspace_id', '=', workspaceId)
    .where('f.kind', '=', 'minified_source')
    .where('f.url', 'in', candidateUrls(file))
    .where('b.release', '=', release)
    .where((eb) => (dist ? eb('b.dist', '=', dist) : eb('b.dist', 'is', null)))
    .orderBy('b.created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!minified) return undefined;
  const row = await db
    .selectFrom('artifact_files')
    .select('content')
    .where('bundle_id', '=', minified.bundle_id)
    .where('kind', '=', 'source_map')
    .where('url', '=', mapUrl(minified.url, minified.sourcemap))
    .executeTakeFirst();
  return row?.content;
}

/**
 * What to map a frame with when it came without a release or debug ID (a widget ticket's
 * evidence, issue 45: the page's own stack text): the newest uploaded build holding the minified
 * file, the likeliest to be what the page ran a moment before its report. Its debug ID when the
 * file has one, else its bundle's release and dist; undefined when no upload holds the file.
 */
export async function newestBuildOf(
  db: Db,
  workspaceId: string,
  file: string,
): Promise<Pick<OccurrenceDetail, 'release' | 'dist' | 'debug_images'> | undefined> {
  const row = await db
    .selectFrom('artifact_files as f')
    .innerJoin('artifact_bundles as b', 'b.id', 'f.bundle_id')
    .select(['f.debug_id', 'b.release', 'b.dist'])
    .where('f.workspace_id', '=', workspaceId)
    .where('f.kind', '=', 'minified_source')
    .where('f.url', 'in', candidateUrls(file))
    .orderBy('b.created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row) return undefined;
  if (row.debug_id) return { debug_images: [{ code_file: file, debug_id: row.debug_id }] };
  if (!row.release) return undefined;
  return row.dist ? { release: row.release, dist: row.dist } : { release: row.release };
}

/** A source's path as a reader wants it: `../src/money.ts` -> `src/money.ts`. */
function readablePath(source: string): string {
  return source.replace(/^(?:\.\.?\/)+/, '');
}

/**
 * The function a line is in, read from the original source: the nearest declaration above it
 * (`function name`, `name = (...) =>`, `name(...) {`). A source map names identifiers, not the
 * function around a position, so the text is the best witness we have.
 */
const DECLARATION =
  /(?:function\s*\*?\s*([\w$]+)\s*\()|(?:([\w$]+)\s*[:=]\s*(?:async\s+)?(?:function\b|\([^()]*\)\s*(?::\s*[^=]+)?=>|[\w$]+\s*=>))|(?:^\s*(?:(?:public|private|protected|static|async|get|set)\s+)*([\w$]+)\s*\([^()]*\)\s*(?::\s*[^{]+)?\{)/;

const KEYWORDS = new Set(['if', 'for', 'while', 'switch', 'catch', 'return', 'function']);

function enclosingFunction(lines: readonly string[], line: number): string | undefined {
  for (let at = line; at >= 0 && at > line - 200; at--) {
    const match = DECLARATION.exec(lines[at] ?? '');
    const name = match?.[1] ?? match?.[2] ?? match?.[3];
    if (name && !KEYWORDS.has(name)) return name;
  }
  return undefined;
}

function cut(text: string): string {
  return text.length > DETAIL_LIMITS.contextLineChars
    ? text.slice(0, DETAIL_LIMITS.contextLineChars)
    : text;
}

function mapFrame(loaded: CompactMap, input: DetailFrame): DetailFrame {
  // Sentry's colno is 1-based; trace-mapping's column is 0-based.
  const position = loaded.lookup(input.line!, Math.max(0, input.column! - 1));
  if (!position) return input;
  const lines = loaded.sourceLines(position.source);
  const at = position.line - 1;
  const context = lines
    ? {
        pre_context: lines.slice(Math.max(0, at - DETAIL_LIMITS.contextLines), at).map(cut),
        context_line: cut(lines[at] ?? ''),
        post_context: lines.slice(at + 1, at + 1 + DETAIL_LIMITS.contextLines).map(cut),
      }
    : {};
  const file = readablePath(position.source);
  return {
    function: (lines && enclosingFunction(lines, at)) ?? position.name ?? input.function,
    file,
    line: position.line,
    column: position.column + 1,
    in_app: input.in_app === false ? false : !/(^|\/)node_modules\//.test(file),
    ...context,
    minified: { file: input.file!, line: input.line!, column: input.column! },
  };
}

/**
 * Stored occurrences with their frames mapped where a map exists now: what the group page and the
 * Errors API show, so a map uploaded after the event still makes its frames readable.
 */
export async function withMappedDetail<T extends { workspace_id: string; detail: unknown }>(
  symbolicator: Symbolicator,
  rows: readonly T[],
): Promise<T[]> {
  return Promise.all(
    rows.map(async (row) =>
      row.detail
        ? {
            ...row,
            detail: await symbolicator.symbolicate(
              row.workspace_id,
              row.detail as OccurrenceDetail,
            ),
          }
        : row,
    ),
  );
}
