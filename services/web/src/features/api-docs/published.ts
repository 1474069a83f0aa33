import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The committed description (docs/openapi.json), for a web that runs alone (compose, Kubernetes):
 * such a process mounts only web's tables, while the API a client meets behind the proxy is every
 * service's. `pnpm check` and openapi.test hold the committed copy to what `pnpm start` (every
 * table in one process) generates, so it is the whole API as built. Looked for up from this module:
 * beside the source (`services/web/src/...`) and the bundle (`.build/services/web/src/...`) alike.
 */
const RELATIVE = join('docs', 'openapi.json');

type Description = Record<string, unknown> & { paths?: Record<string, Record<string, unknown>> };

let cached: Description | null | undefined;

export function publishedDescription(): Description | undefined {
  if (cached === undefined) cached = read();
  return cached ?? undefined;
}

function read(): Description | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 8; up += 1) {
    const candidate = join(dir, RELATIVE);
    if (existsSync(candidate)) {
      try {
        return JSON.parse(readFileSync(candidate, 'utf8')) as Description;
      } catch {
        return null; // unreadable: the generated description is served instead
      }
    }
    dir = dirname(dir);
  }
  return null;
}

/** `GET /x` keys of a description's operations. */
function operations(description: Description): Set<string> {
  const out = new Set<string>();
  for (const [path, methods] of Object.entries(description.paths ?? {})) {
    for (const method of Object.keys(methods)) out.add(`${method} ${path}`);
  }
  return out;
}

/**
 * What GET /api/v1/openapi.json answers: the generated description, unless this process mounts
 * only part of the API that the published copy describes whole (every generated operation is in
 * it, and it has more). Then the published copy, with this server's URL. A tree whose routes
 * changed since the copy was written (a generated operation missing from it) serves what it
 * generates: that is the truth for the code running.
 */
export function chooseDescription(
  generated: Description,
  published: Description | undefined,
  serverUrl: string,
): Description {
  if (!published) return generated;
  const mine = operations(generated);
  const whole = operations(published);
  const partOfWhole = [...mine].every((op) => whole.has(op)) && whole.size > mine.size;
  return partOfWhole ? { ...published, servers: [{ url: serverUrl }] } : generated;
}
