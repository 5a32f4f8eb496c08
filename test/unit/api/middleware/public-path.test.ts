import { expect } from 'chai';
import type { Request, Response } from 'express';
import { publicPathOf, stripPublicPath } from '../../../../api/middleware/public-path';

/** The url and originalUrl the router sees for `url` under `publicUrl`, and whether next was called. */
function routed(publicUrl: string, url: string) {
  const req = { url, originalUrl: url } as Request;
  let nexts = 0;
  stripPublicPath(publicUrl)!(req, {} as Response, () => nexts++);
  return { url: req.url, originalUrl: req.originalUrl, nexts };
}

describe('the PUBLIC_URL path', () => {
  it("publicPathOf: the URL's path without trailing slashes, '' for none", () => {
    expect(publicPathOf('https://host.example/connector')).to.equal('/connector');
    expect(publicPathOf('https://host.example/a/b/')).to.equal('/a/b');
    expect(publicPathOf('https://host.example')).to.equal('');
    expect(publicPathOf('https://host.example/')).to.equal('');
  });

  it('no path in PUBLIC_URL: no middleware at all', () => {
    expect(stripPublicPath('https://host.example')).to.equal(undefined);
  });

  it('a request under the path: routed without it, originalUrl rewritten too', () => {
    expect(routed('https://host.example/connector', '/connector/v1/me?x=1')).to.deep.equal({
      url: '/v1/me?x=1',
      originalUrl: '/v1/me?x=1',
      nexts: 1,
    });
  });

  it('the path alone, or with only a query: routed as the root', () => {
    expect(routed('https://host.example/connector', '/connector').url).to.equal('/');
    expect(routed('https://host.example/connector', '/connector?a=b').url).to.equal('/?a=b');
  });

  it('a path that only starts with the same letters, or a request at the root: left as it is', () => {
    expect(routed('https://host.example/connector', '/connectors/v1/me')).to.deep.equal({
      url: '/connectors/v1/me',
      originalUrl: '/connectors/v1/me',
      nexts: 1,
    });
    expect(routed('https://host.example/connector', '/v1/me').url).to.equal('/v1/me');
  });
});
