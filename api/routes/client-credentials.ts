import type { Request } from 'express';
import type { ClientRegistry } from '../../shared/domain/oauth/client-registry';
import type { OAuthClient } from '../../shared/domain/oauth/known-client';
import { OAuthProtocolError } from '../../shared/domain/oauth/oauth-protocol-error';

const BASIC_CHALLENGE = { 'WWW-Authenticate': 'Basic realm="connector"' };

/** What a request says about its client: the id it names and the secret it presents, if any. */
interface PresentedCredentials {
  clientId: unknown;
  secret: string | undefined;
}

/** 401 `invalid_client` for Basic credentials that cannot be read, with the challenge RFC 6749 §5.2 asks for. */
const unreadableBasic = () => new OAuthProtocolError('invalid_client', 'client authentication failed', 401, BASIC_CHALLENGE);

/**
 * Finds and authenticates the client of a token or revocation request: `client_secret_basic` (RFC 6749
 * §2.3.1: both parts form-encoded inside the Basic credentials), `client_secret_post`, or a public client
 * that only names itself. Using two methods at once is refused.
 */
export async function clientCredentials(req: Request, clients: ClientRegistry): Promise<OAuthClient> {
  const basic = /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(req.get('authorization') ?? '');
  const posted = postedCredentials(req.body as Record<string, unknown>);
  const { clientId, secret } = basic ? basicCredentials(basic[1], posted) : posted;
  if (typeof clientId !== 'string') throw new OAuthProtocolError('invalid_client', 'client_id is missing', 401);
  const client = await clients.find(clientId).catch((error: unknown) => {
    if (error instanceof OAuthProtocolError && error.error === 'invalid_client') {
      throw new OAuthProtocolError('invalid_client', error.description, 401, basic ? BASIC_CHALLENGE : {});
    }
    throw error;
  });
  clients.authenticate(client, secret, basic !== null);
  return client;
}

/** `client_id` and `client_secret` of the form (`client_secret_post`, or a public client's id alone). */
function postedCredentials(form: Record<string, unknown>): PresentedCredentials {
  if (form.client_secret !== undefined && typeof form.client_secret !== 'string')
    throw new OAuthProtocolError('invalid_request', 'client_secret is malformed');
  return { clientId: form.client_id, secret: form.client_secret };
}

/** The credentials inside `Authorization: Basic`; a `client_id` in the form too must name the same client. */
function basicCredentials(encoded: string, posted: PresentedCredentials): PresentedCredentials {
  if (posted.secret !== undefined) throw new OAuthProtocolError('invalid_request', 'use one client authentication method');
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw unreadableBasic();
  const clientId = formDecoded(decoded.slice(0, colon));
  if (posted.clientId !== undefined && posted.clientId !== clientId)
    throw new OAuthProtocolError('invalid_request', 'client_id does not match the credentials');
  return { clientId, secret: formDecoded(decoded.slice(colon + 1)) };
}

/** One part of the Basic credentials, form-decoded (RFC 6749 §2.3.1); malformed escapes are unreadable credentials. */
function formDecoded(part: string): string {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    throw unreadableBasic();
  }
}
