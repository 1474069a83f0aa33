import { createHmac } from 'node:crypto';

/**
 * Signing secrets look like `whsec_<base64 of 24 random bytes>`: the format the Standard Webhooks
 * libraries accept as is (they strip `whsec_` and base64-decode the rest into the HMAC key).
 *
 * Two signatures are sent, keyed differently on purpose, each as its standard says:
 * - `X-Service-Signature: sha256=<hex>` (SPEC.md): HMAC-SHA256 of the raw body keyed with the
 *   whole secret string as UTF-8 (`whsec_...` included): what a receiver pastes into
 *   `OpenSSL::HMAC.hexdigest('SHA256', secret, body)` works without decoding anything.
 * - `webhook-signature: v1,<base64>` (Standard Webhooks): HMAC-SHA256 of `id.timestamp.body` keyed
 *   with the secret's decoded bytes; one entry per live secret, space-separated, during a rotation.
 */
export const SECRET_PREFIX = 'whsec_';

export function secretKeyBytes(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return Buffer.from(encoded, 'base64');
}

export function serviceSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

export function standardSignature(
  secret: string,
  webhookId: string,
  timestampSeconds: number,
  body: string,
): string {
  const mac = createHmac('sha256', secretKeyBytes(secret))
    .update(`${webhookId}.${timestampSeconds}.${body}`, 'utf8')
    .digest('base64');
  return `v1,${mac}`;
}

export interface SigningSecrets {
  current: string;
  /** The secret before the last rotation, while its 24 h overlap lasts. */
  previous: string | null;
}

/**
 * Every header of one attempt. The timestamp is the attempt's own (a retry is signed afresh so
 * receivers that reject old timestamps accept it); the id is the delivery's, stable across retries.
 */
export function deliveryHeaders(
  secrets: SigningSecrets,
  delivery: { id: string; event: string; body: string },
  now = Date.now(),
): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  const live = secrets.previous ? [secrets.current, secrets.previous] : [secrets.current];
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'Ferry-Webhooks/1',
    'x-service-event': delivery.event,
    'x-service-signature': serviceSignature(secrets.current, delivery.body),
    'webhook-id': delivery.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': live
      .map((secret) => standardSignature(secret, delivery.id, timestamp, delivery.body))
      .join(' '),
  };
  // X-Service-Signature carries one value (receivers compare the whole header), so during a
  // rotation the old secret's signature travels in its own header for receivers not yet updated.
  if (secrets.previous) {
    headers['x-service-signature-previous'] = serviceSignature(secrets.previous, delivery.body);
  }
  return headers;
}
