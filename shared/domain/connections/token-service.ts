import type { KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { LRUCache } from 'lru-cache';
import { UnauthorizedError } from '../../platform/errors/unauthorized-error';
import type { ConnectionStore } from './connection-store';
import type { Principal } from './principal';

const ALGORITHM = 'HS256' as const;
/** Far larger than any token we issue; anything longer is refused before it is parsed. */
const MAX_TOKEN_LENGTH = 4096;
/**
 * Verified claims are remembered per token string: a platform sends the same token on every call, and the
 * HMAC check with its parsing was the largest single cost of a bearer request's CPU (about 16 µs of 180 on
 * `GET /v1/me`). Only an exact string that verified before can hit; expiry is checked again on every hit,
 * and revocation is never cached (admission reads the connection each time). Bounded, so a flood of
 * distinct tokens costs memory up to this many entries (a few MB) and no more.
 */
const VERIFIED_TOKENS_CACHED = 5000;

/** Issues and verifies access tokens: JWT HS256, iss = aud = PUBLIC_URL, jti = connection id. */
export class TokenService {
  private readonly verified = new LRUCache<string, Principal>({ max: VERIFIED_TOKENS_CACHED });

  /** `now` (milliseconds) is the clock for expiry, of fresh and remembered tokens alike; tests move it. */
  constructor(
    private readonly key: KeyObject,
    private readonly issuer: string,
    private readonly connections: ConnectionStore,
    private readonly now: () => number = Date.now,
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
    const nowSeconds = Math.floor(this.now() / 1000);
    const known = this.verified.get(token);
    if (known) {
      // The same rule as jsonwebtoken's: expired once the clock reaches `exp`.
      if (nowSeconds >= known.expiresAt) {
        this.verified.delete(token);
        throw new UnauthorizedError('expired', 'bearer');
      }
      return known;
    }
    const principal = this.verifySignature(token, nowSeconds);
    this.verified.set(token, principal);
    return principal;
  }

  /** The full check of a token not seen before: signature, pinned algorithm, issuer, audience, expiry. */
  private verifySignature(token: string, nowSeconds: number): Principal {
    let claims: jwt.JwtPayload;
    try {
      claims = jwt.verify(token, this.key, {
        algorithms: [ALGORITHM],
        issuer: this.issuer,
        audience: this.issuer,
        clockTimestamp: nowSeconds,
      }) as jwt.JwtPayload;
    } catch (error) {
      throw new UnauthorizedError(error instanceof jwt.TokenExpiredError ? 'expired' : 'invalid', 'bearer');
    }
    const { sub, jti, iat, exp } = claims;
    if (typeof sub !== 'string' || typeof jti !== 'string' || typeof iat !== 'number' || typeof exp !== 'number') {
      throw new UnauthorizedError('invalid', 'bearer');
    }
    return Object.freeze({ subject: sub, connectionId: jti, issuedAt: iat, expiresAt: exp });
  }
}
