import type { Request } from 'express';
import type { ClientRegistry, OAuthClient } from '../../shared/domain/oauth/client-registry';
import { OAuthProtocolError } from '../../shared/domain/oauth/oauth-protocol-error';

/**
 * Finds and authenticates the client of a token or revocation request: `client_secret_basic` (RFC 6749
 * §2.3.1: both parts form-encoded inside the Basic credentials), `client_secret_post`, or a public client
 * that only names itself. Using two methods at once is refused.
 */
export async function clientCredentials(req: Request, clients: ClientRegistry): Promise<OAuthClient> {
  const form = req.body as Record<string, unknown>;
  const basic = /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(req.get('authorization') ?? '');
  let clientId = form.client_id;
  let secret = typeof form.client_secret === 'string' ? form.client_secret : undefined;
  if (form.client_secret !== undefined && secret === undefined)
    throw new OAuthProtocolError('invalid_request', 'client_secret is malformed');
  if (basic) {
    if (secret !== undefined) throw new OAuthProtocolError('invalid_request', 'use one client authentication method');
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0)
      throw new OAuthProtocolError('invalid_client', 'client authentication failed', 401, {
        'WWW-Authenticate': 'Basic realm="connector"',
      });
    try {
      const basicId = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
      if (clientId !== undefined && clientId !== basicId)
        throw new OAuthProtocolError('invalid_request', 'client_id does not match the credentials');
      clientId = basicId;
      secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '));
    } catch (error) {
      if (error instanceof OAuthProtocolError) throw error;
      throw new OAuthProtocolError('invalid_client', 'client authentication failed', 401, {
        'WWW-Authenticate': 'Basic realm="connector"',
      });
    }
  }
  if (typeof clientId !== 'string') throw new OAuthProtocolError('invalid_client', 'client_id is missing', 401);
  const client = await clients.find(clientId).catch((error: unknown) => {
    if (error instanceof OAuthProtocolError && error.error === 'invalid_client') {
      throw new OAuthProtocolError(
        'invalid_client',
        error.description,
        401,
        basic ? { 'WWW-Authenticate': 'Basic realm="connector"' } : {},
      );
    }
    throw error;
  });
  clients.authenticate(client, secret, basic !== null);
  return client;
}
