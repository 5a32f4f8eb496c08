import { expect } from 'chai';
import { isJsonContentType } from '../../../../../shared/domain/oauth/cimd-fetcher';

describe('client metadata document fetcher: content type', () => {
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
});
