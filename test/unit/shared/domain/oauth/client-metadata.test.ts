import { expect } from 'chai';
import { isAllowedRedirectUri, showableClientName } from '../../../../../shared/domain/oauth/client-metadata';

describe('OAuth client metadata: shown names and allowed redirect URIs', () => {
  it('showableClientName removes control and every bidirectional-control character, and names an empty result', () => {
    const bidi = '\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c';
    expect(showableClientName(`${bidi}My\u0000 App\u009f${bidi}`)).to.equal('My App');
    expect(showableClientName('\u202eppA')).to.equal('ppA');
    expect(showableClientName('Caf\u00e9 \u{1F600}')).to.equal('Caf\u00e9 \u{1F600}');
    expect(showableClientName(` ${bidi} `)).to.equal('Unnamed app');
    expect(showableClientName(undefined)).to.equal('Unnamed app');
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
});
