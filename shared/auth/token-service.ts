import type { KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { UnauthorizedError } from '../errors/unauthorized-error';
import type { ConnectionStore } from '../stores/connection-store';
import type { Principal } from './principal';

const ALGORITHM = 'HS256' as const;
/** Far larger than any token we issue; anything longer is refused before it is parsed. */
const MAX_TOKEN_LENGTH = 4096;

/** Issues and verifies access tokens: JWT HS256, iss = aud = PUBLIC_URL, jti = connection id. */
export class TokenService {
  constructor(
    private readonly key: KeyObject,
    private readonly issuer: string,
    private readonly connections: ConnectionStore,
  ) {}

  /** Signs a token for an already stored connection. */
  sign(subject: string, connectionId: string, issuedAt: number, expiresAt: number): string {
    return jwt.sign({ iat: issuedAt, exp: expiresAt }, this.key, {
      algorithm: ALGORITHM,
      issuer: this.issuer,
      audience: this.issuer,
      subject,
      jwtid: connectionId,
    });
  }

  /**
   * Verifies a bearer token: pinned algorithm, issuer, audience and expiry, then that its connection exists,
   * belongs to the same subject and is not revoked. Throws 401 otherwise.
   */
  async verify(token: string): Promise<Principal> {
    const claims = this.claims(token);
    const connection = await this.connections.get(claims.connectionId);
    if (!connection || connection.revoked || connection.subject !== claims.subject) throw new UnauthorizedError('revoked', 'bearer');
    return { ...claims, ...(connection.client ? { client: connection.client } : {}) };
  }

  /**
   * The signature and claim checks of {@link verify} without the connection lookup (pinned algorithm,
   * issuer, audience, expiry): for callers that check revocation together with other store work.
   * Throws 401 `invalid` or `expired`.
   */
  claims(token: string): Principal {
    if (token.length > MAX_TOKEN_LENGTH) throw new UnauthorizedError('invalid', 'bearer');
    let claims: jwt.JwtPayload;
    try {
      claims = jwt.verify(token, this.key, {
        algorithms: [ALGORITHM],
        issuer: this.issuer,
        audience: this.issuer,
      }) as jwt.JwtPayload;
    } catch (error) {
      throw new UnauthorizedError(error instanceof jwt.TokenExpiredError ? 'expired' : 'invalid', 'bearer');
    }
    const { sub, jti, iat, exp } = claims;
    if (typeof sub !== 'string' || typeof jti !== 'string' || typeof iat !== 'number' || typeof exp !== 'number') {
      throw new UnauthorizedError('invalid', 'bearer');
    }
    return { subject: sub, connectionId: jti, issuedAt: iat, expiresAt: exp };
  }
}
