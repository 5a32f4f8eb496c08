import type { Logger } from 'pino';
import type { Config } from '../config/config';
import type { Metrics } from '../metrics/metrics';

/** Which previous secrets are configured: a rotation's overlap is active for each that is. */
export function previousSecrets(config: Pick<Config, 'connectorSecretPrevious' | 'linkSecretPrevious' | 'webhooks'>) {
  return {
    connector: config.connectorSecretPrevious !== undefined,
    link: config.linkSecretPrevious !== undefined,
    webhook: config.webhooks?.previousSecret !== undefined,
  };
}

/**
 * Announces an active overlap once at start: one log line naming the variables (never their values), and the
 * `connector_previous_secret_configured` gauge. Nothing is logged when no previous secret is set.
 */
export function announceSecretOverlap(
  config: Pick<Config, 'connectorSecretPrevious' | 'linkSecretPrevious' | 'webhooks'>,
  logger: Logger,
  metrics: Metrics,
): void {
  const configured = previousSecrets(config);
  metrics.recordPreviousSecrets(configured);
  const variables = [
    ...(configured.connector ? ['CONNECTOR_SECRET_PREVIOUS'] : []),
    ...(configured.link ? ['LINK_SECRET_PREVIOUS'] : []),
    ...(configured.webhook ? ['WEBHOOK_SECRET_PREVIOUS'] : []),
  ];
  if (variables.length === 0) return;
  logger.warn(
    { previous_secrets: variables },
    `secret rotation overlap active: ${variables.join(', ')} still accepted; remove once connector_previous_secret_uses_total stops rising`,
  );
}
