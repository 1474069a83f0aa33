/**
 * The search bench's reports (issue 43): per workspace GROUPS distinct fingerprints (the class and
 * the top frame vary), then REPEATS more reports of the busiest groups, so retention prunes the
 * oldest and the workspace ends at SPEC.md's 20,000 retained occurrences with groups of unequal
 * counts (and some with no retained occurrence left, as in a real workspace). Each report carries
 * tags (browser, os, feature, tier, locale), a release and an environment, with skewed shares, so
 * the searches select what they would in a real shop: `browser:Chrome` about half the groups,
 * `feature:checkout-*` about a third, a free-text word a few percent.
 *
 * Deterministic: report n of a workspace is the same in every run.
 */
export const GROUPS = 20_000;
export const REPEATS = 5_000;
export const REPORTS_PER_REQUEST = 10;
/** Reports spread their occurred_at over this many days before now (the sparklines' 14). */
const SPREAD_DAYS = 14;

const CLASSES = [
  'TypeError',
  'ReferenceError',
  'RangeError',
  'SyntaxError',
  'NetworkError',
  'TimeoutError',
  'ChunkLoadError',
  'AbortError',
  'PaymentDeclinedError',
  'ValidationError',
  'NotFoundError',
  'AuthenticationError',
  'RateLimitError',
  'StaleCartError',
  'InventoryError',
  'SerializationError',
  'QuotaExceededError',
  'SecurityError',
  'InvalidStateError',
  'DataCloneError',
] as const;

const MESSAGES = [
  "Cannot read properties of undefined (reading 'total')",
  "Cannot read properties of null (reading 'addEventListener')",
  'Failed to fetch',
  'Request timed out after 30000 ms',
  'Loading chunk 417 failed',
  'The user aborted a request',
  'Card was declined: insufficient funds',
  'Postcode is not valid for the selected country',
  'Product sku-88421 was not found',
  'Session expired, please sign in again',
  'Too many requests to /api/cart',
  'Cart changed while checking out',
  'Only 2 left in stock',
  'Unexpected token < in JSON at position 0',
  'Quota exceeded while saving the basket',
  'Blocked a frame with origin from accessing a cross-origin frame',
  'Coupon code SPRING24 has expired',
  'Maximum call stack size exceeded',
  'Invalid array length',
  'Network request failed while loading recommendations',
] as const;

const FUNCTIONS = ['render', 'onClick', 'submit', 'load', 'update', 'fetchJson', 'validate'];
const MODULES = ['app', 'checkout', 'cart', 'catalog', 'account', 'search', 'vendor'];
const FEATURES = [
  'checkout-cart',
  'checkout-payment',
  'checkout-shipping',
  'search',
  'catalog',
  'account',
  'wishlist',
  'recommendations',
  'admin-reports',
];
const ENVIRONMENTS = ['production', 'staging', 'development'];

/** A cheap deterministic hash of n (and a salt): the same report every run. */
function mix(n: number, salt: number): number {
  let h = (n * 2654435761 + salt * 40503) >>> 0;
  h = Math.imul(h ^ (h >>> 15), 2246822519) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 3266489917) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/** One of `values` with the given weights (in percent), chosen by the hash of n. */
function weighted<T>(n: number, salt: number, values: readonly T[], weights: readonly number[]): T {
  let at = mix(n, salt) % 100;
  for (const [i, w] of weights.entries()) {
    if (at < w) return values[i]!;
    at -= w;
  }
  return values[values.length - 1]!;
}

const pick = <T>(n: number, salt: number, values: readonly T[]): T =>
  values[mix(n, salt) % values.length]!;

/** The report of group `g` (0 ≤ g < GROUPS): its class and top frame make its fingerprint. */
function report(g: number, occurredAt: Date, variant: number) {
  const module = pick(g, 1, MODULES);
  const release = `3.${mix(g, 2) % 12}.${mix(g + variant, 3) % 6}`;
  return {
    error_class: CLASSES[g % CLASSES.length],
    message: `${pick(g, 4, MESSAGES)} (#${g})`,
    backtrace: [
      `at ${pick(g, 5, FUNCTIONS)}${g} (https://shop.example.test/assets/${module}.js:${100 + Math.floor(g / CLASSES.length)}:${g % 80})`,
      `at dispatch (https://shop.example.test/assets/vendor.js:2231:9)`,
      'at HTMLButtonElement.onclick (https://shop.example.test/:1:1)',
    ],
    url: `https://shop.example.test/${module}/${mix(g, 6) % 500}`,
    environment: weighted(g + variant, 7, ENVIRONMENTS, [80, 15, 5]),
    app_version: release,
    context: {
      tags: {
        browser: weighted(
          g + variant,
          8,
          ['Chrome', 'Safari', 'Firefox', 'Edge', 'Samsung Internet'],
          [55, 20, 12, 8, 5],
        ),
        os: weighted(
          g + variant,
          9,
          ['Windows', 'macOS', 'iOS', 'Android', 'Linux'],
          [35, 20, 20, 20, 5],
        ),
        feature: pick(g, 10, FEATURES),
        tier: weighted(g, 11, ['free', 'pro', 'enterprise'], [70, 25, 5]),
        locale: pick(g + variant, 12, ['en-GB', 'en-US', 'de-DE', 'fr-FR', 'nl-NL']),
      },
    },
    occurred_at: occurredAt.toISOString(),
  };
}

/**
 * Workspace's requests in sending order, bodies ready to post: first every group once, oldest
 * first (spread over SPREAD_DAYS), then REPEATS reports of the first tenth of the groups (the
 * busiest ones), dated in the last hour. `source` cycles through the product's sources per group.
 */
export function workspaceBodies(now: number, sources: readonly string[]): string[] {
  const stepMs = (SPREAD_DAYS * 86_400_000) / GROUPS;
  const reports: { body: ReturnType<typeof report>; source: string }[] = [];
  for (let g = 0; g < GROUPS; g++) {
    const at = new Date(now - (GROUPS - g) * stepMs);
    reports.push({ body: report(g, at, 0), source: sources[g % sources.length]! });
  }
  for (let r = 0; r < REPEATS; r++) {
    const g = mix(r, 13) % (GROUPS / 10);
    const at = new Date(now - 3_600_000 + (r * 3_600_000) / REPEATS);
    reports.push({ body: report(g, at, r + 1), source: sources[g % sources.length]! });
  }
  const bodies: string[] = [];
  for (let i = 0; i < reports.length; i += REPORTS_PER_REQUEST) {
    const chunk = reports.slice(i, i + REPORTS_PER_REQUEST);
    // A report's own source overrides the batch's (services/ingest-errors report.ts).
    bodies.push(JSON.stringify({ errors: chunk.map((r) => ({ ...r.body, source: r.source })) }));
  }
  return bodies;
}

/**
 * The searches measured: the page's default, three tag searches (a common value, a rare one, a
 * glob) and two free-text ones (a word in some messages, a quoted phrase), each as the box shows
 * it after typing (the default `is:unresolved` kept in front).
 */
export const SEARCHES = [
  'is:unresolved',
  'is:unresolved browser:Chrome',
  'is:unresolved browser:Edge',
  'is:unresolved feature:checkout-*',
  'is:unresolved coupon',
  'is:unresolved "Loading chunk"',
] as const;
