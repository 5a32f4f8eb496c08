import { expect } from 'chai';
import { writeJson } from '../../../../api/http/write-json';
import { recordingResponse } from '../../../support/recording-response';

describe('writeJson', () => {
  it('a body: its JSON, the JSON content type with charset and the length in bytes, not characters', () => {
    const { res, headers, body } = recordingResponse();
    writeJson(res, { name: 'café', n: 1 });
    expect(body()).to.equal('{"name":"café","n":1}');
    expect(headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(headers.get('content-length')).to.equal(22);
  });

  it('a content type given: that type is sent instead', () => {
    const { res, headers } = recordingResponse();
    writeJson(res, { type: 'about:blank' }, 'application/problem+json');
    expect(headers.get('content-type')).to.equal('application/problem+json');
  });

  it('undefined, which JSON.stringify turns into no text: an empty body of length 0', () => {
    const { res, headers, body } = recordingResponse();
    writeJson(res, undefined);
    expect(body()).to.equal('');
    expect(headers.get('content-length')).to.equal(0);
  });
});
