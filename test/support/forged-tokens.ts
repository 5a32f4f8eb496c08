import { createHmac, generateKeyPairSync, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';

/** The claims a genuine token carries, for the connector at `issuer`. */
export interface TokenClaims {
  iss: string;
  aud: string;
  sub: string;
  jti: string;
  iat: number;
  exp: number;
  [claim: string]: unknown;
}

const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Seconds since the epoch. */
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** Claims valid for ten minutes from now. */
export function freshClaims(issuer: string, sub: string, jti: string): TokenClaims {
  return { iss: issuer, aud: issuer, sub, jti, iat: nowSeconds(), exp: nowSeconds() + 600 };
}

/** A JWT signed with HMAC-SHA256 over `key`'s bytes, whatever `header` claims (built by hand, no checks). */
export function hmacToken(header: object, claims: object, key: string | Buffer | KeyObject): string {
  const signingInput = `${part(header)}.${part(claims)}`;
  return `${signingInput}.${createHmac('sha256', key).update(signingInput).digest('base64url')}`;
}

/** An unsigned token (`alg` none or a variant of it) with an empty signature. */
export function unsignedToken(claims: object, alg = 'none'): string {
  return `${part({ alg, typ: 'JWT' })}.${part(claims)}.`;
}

/** The payload of `token` replaced by `claims`, keeping its header and its original signature. */
export function tamperedToken(token: string, change: (claims: Record<string, unknown>) => object): string {
  const [header, payload, signature] = token.split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  return `${header}.${part(change(claims))}.${signature}`;
}

/** An RSA key pair, made once: its public PEM is what an HS/RS confusion attack uses as the HMAC key. */
let rsa: { publicPem: string; privateKey: KeyObject } | undefined;
export function rsaKeys(): { publicPem: string; privateKey: KeyObject } {
  if (!rsa) {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    rsa = { publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(), privateKey };
  }
  return rsa;
}

/** A token signed RS256 with a private key the connector has never seen. */
export function rs256Token(claims: object): string {
  return jwt.sign(claims, rsaKeys().privateKey, { algorithm: 'RS256' });
}
