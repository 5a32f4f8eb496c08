import path from 'node:path';
import { expect } from 'chai';

import pathToRegexpModule = require('path-to-regexp');

import { rememberValidatorRoutePatterns } from '../../../../api/middleware/validator-route-patterns';

describe('rememberValidatorRoutePatterns', () => {
  const original = rememberValidatorRoutePatterns();

  it('the validator reads the same path-to-regexp module whose export is replaced (else the cache does nothing)', () => {
    const validatorDir = path.dirname(require.resolve('express-openapi-validator/package.json'));
    expect(require.resolve('path-to-regexp', { paths: [validatorDir] })).to.equal(require.resolve('path-to-regexp'));
    expect(pathToRegexpModule.pathToRegexp).to.not.equal(original);
  });

  it('a template compiled again with equal options gives the pattern compiled the first time, equal to a fresh compile', () => {
    const first = pathToRegexpModule.pathToRegexp('/v1/jobs/:id', { sensitive: false, trailing: true });
    const again = pathToRegexpModule.pathToRegexp('/v1/jobs/:id', { sensitive: false, trailing: true });
    const fresh = original('/v1/jobs/:id', { sensitive: false, trailing: true });
    expect(again).to.equal(first);
    expect(first.regexp.source).to.equal(fresh.regexp.source);
    expect(first.regexp.flags).to.equal(fresh.regexp.flags);
    expect(first.keys).to.deep.equal(fresh.keys);
    expect(first.regexp.exec('/v1/jobs/abc')?.[1]).to.equal('abc');
    expect(first.regexp.exec('/v1/jobs/def')?.[1]).to.equal('def');
  });

  it('other options or another template compile their own pattern', () => {
    const loose = pathToRegexpModule.pathToRegexp('/v1/me', { sensitive: false });
    const sensitive = pathToRegexpModule.pathToRegexp('/v1/me', { sensitive: true });
    expect(sensitive).to.not.equal(loose);
    expect(loose.regexp.test('/V1/ME')).to.equal(true);
    expect(sensitive.regexp.test('/V1/ME')).to.equal(false);
    expect(pathToRegexpModule.pathToRegexp('/v1/things', { sensitive: false })).to.not.equal(loose);
  });

  it('options that are not plain values are compiled on every call, never remembered', () => {
    const options = { sensitive: false, delimiter: '/', extra: { nested: true } } as never;
    expect(pathToRegexpModule.pathToRegexp('/v1/me', options)).to.not.equal(pathToRegexpModule.pathToRegexp('/v1/me', options));
  });

  it('installing again keeps the one cache and returns the original compiler', () => {
    const installed = pathToRegexpModule.pathToRegexp;
    expect(rememberValidatorRoutePatterns()).to.equal(original);
    expect(pathToRegexpModule.pathToRegexp).to.equal(installed);
  });
});
