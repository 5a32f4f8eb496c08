import { expect } from 'chai';
import { OAuthProtocolError } from '../../../../../shared/domain/oauth/oauth-protocol-error';

describe('OAuthProtocolError', () => {
  it('without status or headers: a 400 with no headers, the description as its message', () => {
    const error = new OAuthProtocolError('invalid_request', 'redirect_uri is missing');
    expect(error).to.be.instanceOf(Error);
    expect(error).to.include({ error: 'invalid_request', description: 'redirect_uri is missing', status: 400, name: 'OAuthProtocolError' });
    expect(error.message).to.equal('redirect_uri is missing');
    expect(error.headers).to.deep.equal({});
  });

  it('with a status and headers: both kept', () => {
    const error = new OAuthProtocolError('invalid_client', 'unknown client', 401, { 'WWW-Authenticate': 'Basic realm="oauth"' });
    expect([error.status, error.headers]).to.deep.equal([401, { 'WWW-Authenticate': 'Basic realm="oauth"' }]);
  });
});
