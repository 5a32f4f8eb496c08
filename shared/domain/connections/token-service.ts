import jwt from 'jsonwebtoken';
import { LRUCache } from 'lru-cache';
import { UnauthorizedError } from '../../platform/errors/problems';
import type { KeyRing, RingEntry } from '../../platform/secrets/key-ring';
import type { ConnectionStore } from './connection-store';
import type { Principal } from './principal';

const ALGORITHM = 'HS256' as const;
/** Far larger than any token we issue; anything longer is refused before it is parsed. */
const MAX_TOKEN_LENGTH = 4096;
/**
 * Verified claims are remembered per token string: a platform sends the same token on every call, and the
 * HMAC check with its parsing was a bearer request's largest cost (bench/README.md). Only an exact string
 * that verified before can hit; expiry is checked again on every hit, and revocation is never cached
 * (admission reads the connection each time). Bounded: a flood of distinct tokens costs a few MB at most.
 */
const VERIFIED_TOKENS_CACHED = 5000;

/** A verified token's claims, and whether only the previous secret's key verified it. */
interface Verified {
  principal: Principal;
  byPrevious: boolean;
}

/** What a {@link TokenService} works with. */
export interface TokenServiceDependencies {
  keys: KeyRing;
  /** The tokens' `iss` and `aud`: PUBLIC_URL. */
  issuer: string;
  connections: ConnectionStore;
  /** The clock (milliseconds) for expiry, of fresh and remembered tokens alike; tests move it. */
  now?: () => number;
  /** Told of each token accepted only thanks to the previous secret (cached ones included). */
  onPreviousKey?: () => void;
}

/**
 * Issues and verifies access tokens: JWT HS256, iss = aud = PUBLIC_URL, jti = connection id, and a `kid`
 * header naming the secret whose key signed it, so a rotation's overlap can accept the previous one.
 */
export class TokenService {
  private readonly verified = new LRUCache<string, Verified>({ max: VERIFIED_TOKENS_CACHED });

  private readonly deps: Required<TokenServiceDependencies>;

  constructor(deps: TokenServiceDependencies) {
    this.deps = { ...deps, now: deps.now ?? Date.now, onPreviousKey: deps.onPreviousKey ?? (() => {}) };
  }

  /** Signs a token for an already stored connection, always with the current secret's key. */
  sign(subject: string, connectionId: string, issuedAt: number, expiresAt: number): string {
    return jwt.sign({ iat: issuedAt, exp: expiresAt }, this.deps.keys.current.tokenKey, {
      algorithm: ALGORITHM,
      keyid: this.deps.keys.current.keyId,
      issuer: this.deps.issuer,
      audience: this.deps.issuer,
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
    const connection = await this.deps.connections.get(claims.connectionId);
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
    const nowSeconds = Math.floor(this.deps.now() / 1000);
    const known = this.verified.get(token);
    if (known) {
      // The same rule as jsonwebtoken's: expired once the clock reaches `exp`.
      if (nowSeconds >= known.principal.expiresAt) {
        this.verified.delete(token);
        throw new UnauthorizedError('expired', 'bearer');
      }
      if (known.byPrevious) this.deps.onPreviousKey();
      return known.principal;
    }
    const fresh = this.verifySignature(token, nowSeconds);
    this.verified.set(token, fresh);
    if (fresh.byPrevious) this.deps.onPreviousKey();
    return fresh.principal;
  }

  /**
   * The full check of a token not seen before: signature, pinned algorithm, issuer, audience, expiry. A
   * `kid` picks its key (an unknown one is refused); a token without one, from a release before 0.7.0, is tried
   * against each accepted key, current first. jsonwebtoken checks the signature before any claim, so only a
   * bad signature moves on to the next key.
   */
  private verifySignature(token: string, nowSeconds: number): Verified {
    const keyId = headerKeyId(token);
    const candidates: readonly (RingEntry | undefined)[] = keyId === undefined ? this.deps.keys.entries : [this.deps.keys.byKeyId(keyId)];
    for (const entry of candidates) {
      if (!entry) break;
      let claims: jwt.JwtPayload;
      try {
        claims = jwt.verify(token, entry.keys.tokenKey, {
          algorithms: [ALGORITHM],
          issuer: this.deps.issuer,
          audience: this.deps.issuer,
          clockTimestamp: nowSeconds,
        }) as jwt.JwtPayload;
      } catch (error) {
        if (error instanceof jwt.JsonWebTokenError && error.message === 'invalid signature') continue;
        throw new UnauthorizedError(error instanceof jwt.TokenExpiredError ? 'expired' : 'invalid', 'bearer');
      }
      return { principal: principalOf(claims), byPrevious: entry.previous };
    }
    throw new UnauthorizedError('invalid', 'bearer');
  }
}

/** The claims a token must carry, or 401 `invalid`. */
function principalOf(claims: jwt.JwtPayload): Principal {
  const { sub, jti, iat, exp } = claims;
  if (typeof sub !== 'string' || typeof jti !== 'string' || typeof iat !== 'number' || typeof exp !== 'number') {
    throw new UnauthorizedError('invalid', 'bearer');
  }
  return Object.freeze({ subject: sub, connectionId: jti, issuedAt: iat, expiresAt: exp });
}

/**
 * The `kid` of a compact JWS's header; undefined when there is none. A header that does not parse, or a
 * `kid` that is not a string, is left for jsonwebtoken to refuse (undefined here, then tried and refused).
 */
function headerKeyId(token: string): string | undefined {
  const end = token.indexOf('.');
  if (end <= 0) return undefined;
  try {
    const header = JSON.parse(Buffer.from(token.slice(0, end), 'base64url').toString('utf8')) as unknown;
    const kid = header && typeof header === 'object' ? (header as { kid?: unknown }).kid : undefined;
    return typeof kid === 'string' ? kid : undefined;
  } catch {
    return undefined;
  }
}
