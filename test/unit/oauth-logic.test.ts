import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { isPublicAddress } from '../../shared/platform/net/address-policy';
import { isAllowedRedirectUri } from '../../shared/domain/oauth/client-registry';
import { devConsentAllowed } from '../../shared/domain/oauth/dev-consent';
import { wellKnownPaths } from '../../shared/domain/oauth/discovery';
import { isS256Challenge, s256ChallengeOf, verifiesS256 } from '../../shared/domain/oauth/pkce';

describe('OAuth pure logic', () => {
  it('isPublicAddress refuses loopback, private, link-local, shared, multicast and mapped addresses, and accepts public ones', () => {
    for (const address of ['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1',
      '::1', '::', 'fe80::1', 'fc00::1', 'fd12::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', 'not-an-ip']) {
      expect(isPublicAddress(address), address).to.equal(false);
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8']) expect(isPublicAddress(address), address).to.equal(true);
  });

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
    for (const bad of ['short', 'a'.repeat(129), 'a'.repeat(42) + '!', undefined, 42]) expect(s256ChallengeOf(bad), String(bad)).to.equal(undefined);
  });

  it('the dev consent page is allowed only with a loopback PUBLIC_URL, a loopback listener and no CONSENT_URL', () => {
    const local = { publicUrl: 'http://localhost:8787', host: '127.0.0.1', oauth: { consentUrlSet: false } };
    expect(devConsentAllowed(local)).to.equal(true);
    expect(devConsentAllowed({ ...local, publicUrl: 'http://[::1]:8787', host: '::1' })).to.equal(true);
    expect(devConsentAllowed({ ...local, oauth: { consentUrlSet: true } }), 'CONSENT_URL set').to.equal(false);
    expect(devConsentAllowed({ ...local, publicUrl: 'https://connector.example.com' }), 'public PUBLIC_URL').to.equal(false);
    for (const host of [undefined, '0.0.0.0', '192.0.2.2', 'fd00::2', '::ffff:192.0.2.2']) {
      expect(devConsentAllowed({ ...local, host }), `listening on ${host ?? 'every interface'}`).to.equal(false);
    }
  });

  it('redirect URIs: https anywhere, http only on loopback, reverse-domain private schemes, never fragments', () => {
    for (const uri of ['https://claude.ai/api/mcp/auth_callback', 'http://localhost:6274/oauth/callback', 'http://127.0.0.1:33418/cb', 'com.example.app:/cb']) {
      expect(isAllowedRedirectUri(uri), uri).to.equal(true);
    }
    for (const uri of ['http://app.example.com/cb', 'http://localhost.evil.com/cb', 'https://a.example/cb#frag', 'javascript:alert(1)', 'myapp:/cb', 'not a url']) {
      expect(isAllowedRedirectUri(uri), uri).to.equal(false);
    }
  });

  it('well-known paths: the plain ones and the RFC placement for a PUBLIC_URL with a path, plain ones without', () => {
    expect(wellKnownPaths('https://h.example/base').resource).to.deep.equal([
      '/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource/base', '/.well-known/oauth-protected-resource/base/mcp',
    ]);
    expect(wellKnownPaths('https://h.example/base').authorizationServer).to.deep.equal(['/.well-known/oauth-authorization-server', '/.well-known/oauth-authorization-server/base']);
    expect(wellKnownPaths('https://h.example').authorizationServer).to.deep.equal(['/.well-known/oauth-authorization-server']);
  });
});
