import { createHmac, createSecretKey, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { MemoryConnectionStore } from '../../../../../shared/adapters/memory/memory-connection-store';
import { TokenService } from '../../../../../shared/domain/connections/token-service';
import { UnauthorizedError } from '../../../../../shared/platform/errors/problems';
import { deriveKeys } from '../../../../../shared/platform/secrets/derived-keys';
import { KeyRing } from '../../../../../shared/platform/secrets/key-ring';

const ISSUER = 'https://connector.example.com';
const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

/** A token service whose clock the test moves; `clock.ms` is read on every check. */
function serviceAt(key = createSecretKey(randomBytes(32))) {
  const clock = { ms: T0 };
  return {
    clock,
    key,
    tokens: new TokenService({
      keys: new KeyRing({ ...deriveKeys('x'.repeat(32)), tokenKey: key }),
      issuer: ISSUER,
      connections: new MemoryConnectionStore(),
      now: () => clock.ms,
    }),
  };
}

function reasonOf(check: () => unknown): string {
  try {
    check();
  } catch (error) {
    if (error instanceof UnauthorizedError) return error.reason;
    throw error;
  }
  return 'accepted';
}

describe('token claims with remembered verifications (TokenService.claims)', () => {
  const issuedAt = T0 / 1000;

  it('a token checked once is refused as expired when checked again after its exp, and before it is accepted', () => {
    const { clock, tokens } = serviceAt();
    const token = tokens.sign('person@example.com', 'conn_1', issuedAt, issuedAt + 60);
    expect(tokens.claims(token)).to.include({ subject: 'person@example.com', connectionId: 'conn_1', expiresAt: issuedAt + 60 });
    clock.ms = T0 + 59_999;
    expect(reasonOf(() => tokens.claims(token))).to.equal('accepted');
    clock.ms = T0 + 60_000;
    expect(reasonOf(() => tokens.claims(token))).to.equal('expired');
    expect(reasonOf(() => tokens.claims(token))).to.equal('expired');
  });

  it('a token already expired at its first check is refused as expired, the same as after a remembered check', () => {
    const { clock, tokens } = serviceAt();
    const token = tokens.sign('p', 'conn_1', issuedAt, issuedAt + 60);
    clock.ms = T0 + 61_000;
    expect(reasonOf(() => tokens.claims(token))).to.equal('expired');
  });

  it('a remembered token with one signature character changed is refused as invalid', () => {
    const { tokens } = serviceAt();
    const token = tokens.sign('p', 'conn_1', issuedAt, issuedAt + 600);
    tokens.claims(token);
    const last = token.at(-2) === 'A' ? 'B' : 'A';
    const tampered = `${token.slice(0, -2)}${last}${token.at(-1)}`;
    expect(reasonOf(() => tokens.claims(tampered))).to.equal('invalid');
    expect(reasonOf(() => tokens.claims(token))).to.equal('accepted');
  });

  it('the same claims signed with another key are refused as invalid after the genuine token was remembered', () => {
    const { tokens } = serviceAt();
    const other = serviceAt().tokens;
    tokens.claims(tokens.sign('p', 'conn_1', issuedAt, issuedAt + 600));
    expect(reasonOf(() => tokens.claims(other.sign('p', 'conn_1', issuedAt, issuedAt + 600)))).to.equal('invalid');
  });

  it('a remembered verification answers the same claims as the first one, and they cannot be altered', () => {
    const { tokens } = serviceAt();
    const token = tokens.sign('p', 'conn_1', issuedAt, issuedAt + 600);
    const first = tokens.claims(token);
    const again = tokens.claims(token);
    expect(again).to.deep.equal({ subject: 'p', connectionId: 'conn_1', issuedAt, expiresAt: issuedAt + 600 });
    expect(again).to.deep.equal(first);
    expect(() => {
      (again as { subject: string }).subject = 'someone else';
    }).to.throw(TypeError);
    expect(tokens.claims(token).subject).to.equal('p');
  });
});

describe('token keys during a rotation (TokenService with a previous secret)', () => {
  const issuedAt = T0 / 1000;
  const OLD = 'unit-old-connector-secret-0123456789abcdef';
  const NEW = 'unit-new-connector-secret-0123456789abcdef';
  const header = (token: string) => JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8'));
  const withRing = (current: string, previous?: string) => {
    let uses = 0;
    const tokens = new TokenService({
      keys: KeyRing.fromSecrets(current, previous),
      issuer: ISSUER,
      connections: new MemoryConnectionStore(),
      now: () => T0,
      onPreviousKey: () => {
        uses += 1;
      },
    });
    return { tokens, uses: () => uses };
  };
  const signedUnder = (secret: string, kid: string | undefined, alg = 'HS256') => {
    const claims = { iss: ISSUER, aud: ISSUER, sub: 'p', jti: 'conn_1', iat: issuedAt, exp: issuedAt + 600 };
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const input = `${part({ alg, typ: 'JWT', ...(kid === undefined ? {} : { kid }) })}.${part(claims)}`;
    return `${input}.${createHmac('sha256', deriveKeys(secret).tokenKey).update(input).digest('base64url')}`;
  };

  it('signs with the current secret and names it in kid; the old service, given only the old secret, refuses that token', () => {
    const { tokens } = withRing(NEW, OLD);
    const token = tokens.sign('p', 'conn_1', issuedAt, issuedAt + 600);
    expect(header(token)).to.deep.equal({ alg: 'HS256', typ: 'JWT', kid: deriveKeys(NEW).keyId });
    expect(reasonOf(() => withRing(OLD).tokens.claims(token))).to.equal('invalid');
  });

  it('accepts the previous secret’s token with its kid or with none, telling the hook on every check, remembered ones included', () => {
    const { tokens, uses } = withRing(NEW, OLD);
    for (const token of [signedUnder(OLD, deriveKeys(OLD).keyId), signedUnder(OLD, undefined)]) {
      expect(reasonOf(() => tokens.claims(token))).to.equal('accepted');
      expect(reasonOf(() => tokens.claims(token))).to.equal('accepted');
    }
    expect(uses()).to.equal(4);
    expect(reasonOf(() => tokens.claims(signedUnder(NEW, undefined)))).to.equal('accepted');
    expect(uses()).to.equal(4);
  });

  it('refuses an unknown kid, a kid naming the other key, another algorithm, and the previous token once the overlap is over', () => {
    const { tokens } = withRing(NEW, OLD);
    expect(reasonOf(() => tokens.claims(signedUnder(OLD, 'unknown-kid')))).to.equal('invalid');
    expect(reasonOf(() => tokens.claims(signedUnder(OLD, deriveKeys(NEW).keyId)))).to.equal('invalid');
    expect(reasonOf(() => tokens.claims(signedUnder(OLD, deriveKeys(OLD).keyId, 'HS512')))).to.equal('invalid');
    expect(reasonOf(() => withRing(NEW).tokens.claims(signedUnder(OLD, deriveKeys(OLD).keyId)))).to.equal('invalid');
    expect(reasonOf(() => withRing(NEW).tokens.claims(signedUnder(OLD, undefined)))).to.equal('invalid');
  });
});
