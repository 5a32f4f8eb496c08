import { expect } from 'chai';
import { redirectWith } from '../../../../../shared/domain/oauth/pending-request';

describe('redirectWith (RFC 6749 §4.1.2)', () => {
  it('appends each defined parameter, encoded, keeping the query the redirect URI already had', () => {
    const url = new URL(redirectWith('https://client.example/cb?app=1', { code: 'a b&c', state: 'xyz', iss: 'https://as.example' }));
    expect(url.origin + url.pathname).to.equal('https://client.example/cb');
    expect([...url.searchParams]).to.deep.equal([
      ['app', '1'],
      ['code', 'a b&c'],
      ['state', 'xyz'],
      ['iss', 'https://as.example'],
    ]);
  });

  it('an undefined parameter (no state sent): left out, not written as "undefined"', () => {
    expect(redirectWith('https://client.example/cb', { code: 'c', state: undefined })).to.equal('https://client.example/cb?code=c');
  });

  it('a parameter the URI already has: replaced, not repeated', () => {
    expect(redirectWith('https://client.example/cb?state=old', { state: 'new' })).to.equal('https://client.example/cb?state=new');
  });
});
