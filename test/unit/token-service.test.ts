import { expect } from 'chai';
import { createSecretKey, randomBytes } from 'node:crypto';
import { TokenService } from '../../shared/domain/connections/token-service';
import { UnauthorizedError } from '../../shared/platform/errors/unauthorized-error';
import { MemoryConnectionStore } from '../../shared/adapters/memory/memory-connection-store';
import { KeyRing } from '../../shared/platform/secrets/key-ring';
import { deriveKeys } from '../../shared/platform/secrets/derived-keys';

const ISSUER = 'https://connector.example.com';
const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

/** A token service whose clock the test moves; `clock.ms` is read on every check. */
function serviceAt(key = createSecretKey(randomBytes(32))) {
  const clock = { ms: T0 };
  return {
    clock,
    key,
    tokens: new TokenService(
      new KeyRing({ ...deriveKeys('x'.repeat(32)), tokenKey: key }),
      ISSUER,
      new MemoryConnectionStore(),
      () => clock.ms,
    ),
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
