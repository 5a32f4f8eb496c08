import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { isPublicAddress } from '../../shared/platform/net/address-policy';
import { isJsonContentType } from '../../shared/domain/oauth/cimd-fetcher';
import { isAllowedRedirectUri, showableClientName } from '../../shared/domain/oauth/client-metadata';
import { devConsentAllowed } from '../../shared/domain/oauth/dev-consent';
import { wellKnownPaths } from '../../shared/domain/oauth/discovery';
import { isS256Challenge, s256ChallengeOf, verifiesS256 } from '../../shared/domain/oauth/pkce';

describe('OAuth pure logic', () => {
  it('isPublicAddress refuses loopback, private, link-local, shared, multicast and mapped addresses, and accepts public ones', () => {
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd12::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      'not-an-ip',
    ]) {
      expect(isPublicAddress(address), address).to.equal(false);
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8'])
      expect(isPublicAddress(address), address).to.equal(true);
  });

  it('isPublicAddress refuses every IPv6 spelling of a non-public address, and accepts NAT64 of a public one', () => {
    for (const address of [
      '::7f00:1',
      '::127.0.0.1',
      '0:0:0:0:0:0:7f00:1',
      '::a00:1',
      '::8.8.8.8', // IPv4-compatible (deprecated), hex or dotted
      '::ffff:7f00:1',
      '0:0:0:0:0:ffff:7f00:1',
      '::FFFF:A9FE:A9FE',
      '::ffff:c0a8:101', // IPv4-mapped in hex
      '::ffff:0:7f00:1',
      '::ffff:0:808:808', // IPv4-translated (SIIT)
      '64:ff9b::7f00:1',
      '64:ff9b::10.0.0.1',
      '64:ff9b::a9fe:a9fe',
      '64:ff9b::c0a8:101',
      '64:ff9b:1::808:808', // NAT64 of private, local-use NAT64
      '2002:7f00:1::1',
      '2002:c0a8:101::1',
      '2002:808:808::1', // 6to4 (deprecated), whatever it embeds
      '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
      'fe80::1',
      'fe80::1%eth0',
      'febf:ffff::1',
      'fec0::1',
      'fc00::1',
      'fdff:ffff::1', // link-local (scoped too), site-local, unique-local
      '::1',
      '0:0:0:0:0:0:0:1',
      '::',
      '0::0', // loopback, unspecified
      'ff02::1',
      'ff0e::1',
      '2001:db8::1',
      '3fff::1',
      '100::1', // multicast, documentation, discard
    ]) {
      expect(isPublicAddress(address), address).to.equal(false);
    }
    for (const address of ['64:ff9b::808:808', '64:ff9b::8.8.8.8', '2a00:1450:4001:80b::200e', '2001:4860:4860::8888']) {
      expect(isPublicAddress(address), address).to.equal(true);
    }
  });

  it('isJsonContentType accepts application/json and application/*+json, parameters allowed, and refuses everything else', () => {
    for (const type of [
      'application/json',
      'Application/JSON; charset=utf-8',
      'application/vnd.example.client+json',
      ' application/json ;x=y',
    ]) {
      expect(isJsonContentType(type), type).to.equal(true);
    }
    for (const type of [
      undefined,
      '',
      'text/plain',
      'text/html',
      'text/json',
      'application/jsonp',
      'application/json5',
      'application/+json',
      'application/x+json+xml',
      'multipart/x+json',
    ]) {
      expect(isJsonContentType(type), String(type)).to.equal(false);
    }
  });

  it('showableClientName removes control and every bidirectional-control character, and names an empty result', () => {
    const bidi = '\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c';
    expect(showableClientName(`${bidi}My\u0000 App\u009f${bidi}`)).to.equal('My App');
    expect(showableClientName('\u202eppA')).to.equal('ppA');
    expect(showableClientName('Caf\u00e9 \u{1F600}')).to.equal('Caf\u00e9 \u{1F600}');
    expect(showableClientName(` ${bidi} `)).to.equal('Unnamed app');
    expect(showableClientName(undefined)).to.equal('Unnamed app');
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
    for (const bad of ['short', 'a'.repeat(129), `${'a'.repeat(42)}!`, undefined, 42])
      expect(s256ChallengeOf(bad), String(bad)).to.equal(undefined);
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
    for (const uri of [
      'https://claude.ai/api/mcp/auth_callback',
      'http://localhost:6274/oauth/callback',
      'http://127.0.0.1:33418/cb',
      'com.example.app:/cb',
    ]) {
      expect(isAllowedRedirectUri(uri), uri).to.equal(true);
    }
    for (const uri of [
      'http://app.example.com/cb',
      'http://localhost.evil.com/cb',
      'https://a.example/cb#frag',
      'javascript:alert(1)',
      'myapp:/cb',
      'not a url',
      'https://a.example/caf\u00e9',
      'https://a.example/"q"',
      'https://a.example/a\\b',
      'https://a.example/a b',
      'https://a.example/\u202e',
    ]) {
      expect(isAllowedRedirectUri(uri), uri).to.equal(false);
    }
  });

  it('well-known paths: the plain ones and the RFC placement for a PUBLIC_URL with a path, plain ones without', () => {
    expect(wellKnownPaths('https://h.example/base').resource).to.deep.equal([
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource/base',
      '/.well-known/oauth-protected-resource/base/mcp',
    ]);
    expect(wellKnownPaths('https://h.example/base').authorizationServer).to.deep.equal([
      '/.well-known/oauth-authorization-server',
      '/.well-known/oauth-authorization-server/base',
    ]);
    expect(wellKnownPaths('https://h.example').authorizationServer).to.deep.equal(['/.well-known/oauth-authorization-server']);
  });
});
