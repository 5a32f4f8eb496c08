import { expect } from 'chai';
import { resourceMetadataUrl } from '../../../../../shared/domain/oauth/resource-metadata-url';

describe('resourceMetadataUrl (RFC 9728 §3.1)', () => {
  it('a bare origin, with or without a slash: the well-known path alone, no trailing segment', () => {
    expect(resourceMetadataUrl('https://api.example.com')).to.equal('https://api.example.com/.well-known/oauth-protected-resource');
    expect(resourceMetadataUrl('https://api.example.com/')).to.equal('https://api.example.com/.well-known/oauth-protected-resource');
  });

  it('a resource under a path: the well-known segment goes between the host and the path', () => {
    expect(resourceMetadataUrl('https://host.example/base/v1')).to.equal(
      'https://host.example/.well-known/oauth-protected-resource/base/v1',
    );
  });

  it('trailing slashes of the path are dropped and a port is kept', () => {
    expect(resourceMetadataUrl('http://localhost:8787/base//')).to.equal('http://localhost:8787/.well-known/oauth-protected-resource/base');
  });
});
