import { expect } from 'chai';
import { wellKnownPaths } from '../../../../../shared/domain/oauth/discovery';

describe('OAuth discovery', () => {
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
