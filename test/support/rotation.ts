import { Webhook } from 'standardwebhooks';
import { deriveKeys } from '../../shared/platform/secrets/derived-keys';
import { freshClaims, hmacToken } from './forged-tokens';
import { scrape, sumOf } from './prometheus-text';
import { newWebhookSecret, type Received } from './webhook-receiver';

/** The two values of each secret a rotation moves between: `old` first, then `new`. */
export const ROTATION = {
  connector: { old: 'rotation-old-connector-secret-0123456789abcdef', new: 'rotation-new-connector-secret-0123456789abcdef' },
  link: { old: 'rotation-old-link-secret-0123456789abcdef', new: 'rotation-new-link-secret-0123456789abcdef' },
  webhook: { old: newWebhookSecret(), new: newWebhookSecret() },
} as const;

/** The environment of each phase: before the rotation, during its overlap, after it. */
export function phaseEnv(phase: 'before' | 'during' | 'after', webhookUrl?: string): Record<string, string> {
  const { connector, link, webhook } = ROTATION;
  const hooks = (secret: string, previous?: string): Record<string, string> =>
    webhookUrl
      ? {
          WEBHOOK_URL: webhookUrl,
          WEBHOOK_ALLOW_PRIVATE: 'true',
          WEBHOOK_SECRET: secret,
          ...(previous ? { WEBHOOK_SECRET_PREVIOUS: previous } : {}),
        }
      : {};
  if (phase === 'before') return { CONNECTOR_SECRET: connector.old, LINK_SECRET: link.old, ...hooks(webhook.old) };
  if (phase === 'after') return { CONNECTOR_SECRET: connector.new, LINK_SECRET: link.new, ...hooks(webhook.new) };
  return {
    CONNECTOR_SECRET: connector.new,
    CONNECTOR_SECRET_PREVIOUS: connector.old,
    LINK_SECRET: link.new,
    LINK_SECRET_PREVIOUS: link.old,
    ...hooks(webhook.new, webhook.old),
  };
}

/** The decoded JOSE header of a compact JWT. */
export function jwtHeader(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** The key id the connector puts in tokens signed under `secret`. */
export const keyIdOf = (secret: string): string => deriveKeys(secret).keyId;

/**
 * A token for an existing connection signed under `secret`'s token key, as a connector configured with it
 * signs one; `kid` false leaves the key id out, as tokens issued before key ids did.
 */
export function tokenUnder(
  secret: string,
  issuer: string,
  subject: string,
  connectionId: string,
  { kid = true }: { kid?: boolean } = {},
): string {
  const keys = deriveKeys(secret);
  const header = { alg: 'HS256', typ: 'JWT', ...(kid ? { kid: keys.keyId } : {}) };
  return hmacToken(header, freshClaims(issuer, subject, connectionId), keys.tokenKey.export());
}

/** The payload of a JWT (not verified). */
export function jwtClaims(token: string): Record<string, any> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, any>;
}

/** Whether a receiver holding only `secret` accepts a delivery as it was received. */
export function verifiesWith(secret: string, received: Pick<Received, 'id' | 'timestamp' | 'signature' | 'body'>): boolean {
  try {
    new Webhook(secret).verify(received.body, {
      'webhook-id': received.id,
      'webhook-timestamp': received.timestamp,
      'webhook-signature': received.signature,
    });
    return true;
  } catch {
    return false;
  }
}

/** `connector_previous_secret_uses_total{secret}` as the metrics endpoint reports it now. */
export async function previousUses(metricsUrl: string, secret: 'connector' | 'link'): Promise<number> {
  return sumOf(await scrape(metricsUrl), 'connector_previous_secret_uses_total', { secret });
}
