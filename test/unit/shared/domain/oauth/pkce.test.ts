import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { isS256Challenge, s256ChallengeOf, verifiesS256 } from '../../../../../shared/domain/oauth/pkce';

describe('PKCE S256', () => {
  it('verifiesS256 accepts exactly the verifier whose SHA-256 is the challenge', () => {
    const verifier = 'a'.repeat(43);
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    expect(isS256Challenge(challenge)).to.equal(true);
    expect(verifiesS256(verifier, challenge)).to.equal(true);
    expect(verifiesS256('b'.repeat(43), challenge)).to.equal(false);
    expect(verifiesS256(challenge, challenge), 'plain: the challenge itself as verifier').to.equal(false);
    expect(verifiesS256('short', createHash('sha256').update('short').digest('base64url')), 'too short').to.equal(false);
    expect(verifiesS256(undefined, challenge)).to.equal(false);
  });

  it('s256ChallengeOf derives the challenge of a well-formed verifier only', () => {
    const verifier = 'a'.repeat(43);
    expect(s256ChallengeOf(verifier)).to.equal(createHash('sha256').update(verifier).digest('base64url'));
    for (const bad of ['short', 'a'.repeat(129), `${'a'.repeat(42)}!`, undefined, 42])
      expect(s256ChallengeOf(bad), String(bad)).to.equal(undefined);
  });
});
