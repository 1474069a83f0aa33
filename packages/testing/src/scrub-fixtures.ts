/**
 * Secrets in every place an error report can carry them (issue 41's scrubbing tests): each
 * sensitive form (a password, a bearer token, a cookie, a sensitive query parameter, a card number
 * with and without spaces, an API key) as SPEC.md's context and as a Sentry event's parts
 * (exception value, frame code, request URL, query and headers, breadcrumbs, extra, tags, user,
 * contexts). A test sends them and then finds none of SCRUB_SECRETS' values anywhere.
 */

/** The secrets; none of these values may be found anywhere after a report is accepted. */
export const SCRUB_SECRETS = {
  password: 'pw-SECRET-1',
  bearer: 'tok-SECRET-2',
  cookie: 'SECRET-3',
  query: 'SECRET-4',
  card: '4111 1111 1111 1111',
  cardDigits: '4111111111111111',
  apiKey: 'SECRET-5',
} as const;

/** SPEC.md's context of an /ingest/errors report, with the secrets in it. */
export const secretContext = {
  password: SCRUB_SECRETS.password,
  headers: {
    Authorization: `Bearer ${SCRUB_SECRETS.bearer}`,
    Cookie: `sid=${SCRUB_SECRETS.cookie}`,
  },
  note: `paid with ${SCRUB_SECRETS.card}`,
  breadcrumbs: [{ data: { url: `/cart?token=${SCRUB_SECRETS.query}`, amount: 12 } }],
};

/** A Sentry event with the secrets in each of its parts. */
export const secretSentryEvent = {
  exception: {
    values: [
      {
        type: 'PaymentFailed',
        value: `card ${SCRUB_SECRETS.cardDigits} declined`,
        stacktrace: {
          frames: [
            {
              filename: 'pay.py',
              function: 'pay',
              lineno: 3,
              in_app: true,
              pre_context: [`CARD = "${SCRUB_SECRETS.card}"`],
              context_line: `call(headers={"Authorization": "Bearer ${SCRUB_SECRETS.bearer}"})`,
            },
          ],
        },
      },
    ],
  },
  request: {
    url: `https://shop.test/pay?api_key=${SCRUB_SECRETS.apiKey}&item=7`,
    method: 'POST',
    query_string: `api_key=${SCRUB_SECRETS.apiKey}&item=7`,
    headers: {
      Authorization: `Bearer ${SCRUB_SECRETS.bearer}`,
      Cookie: `sid=${SCRUB_SECRETS.cookie}`,
      'Set-Cookie': `sid=${SCRUB_SECRETS.cookie}; HttpOnly`,
    },
  },
  breadcrumbs: {
    values: [
      {
        category: 'http',
        data: { url: `/cart?token=${SCRUB_SECRETS.query}`, password: SCRUB_SECRETS.password },
      },
      { category: 'log', message: `charged ${SCRUB_SECRETS.card}` },
    ],
  },
  extra: { password: SCRUB_SECRETS.password, note: `paid with ${SCRUB_SECRETS.card}` },
  tags: { session_id: SCRUB_SECRETS.cookie, plan: 'pro' },
  user: { id: 'u1', auth_token: SCRUB_SECRETS.bearer },
  contexts: {
    client: { headers: [['Authorization', `Bearer ${SCRUB_SECRETS.bearer}`]] },
    browser: { name: 'Chrome', session: SCRUB_SECRETS.cookie },
  },
};
