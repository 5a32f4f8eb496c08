import { expect } from 'chai';
import type { Response } from 'express';
import { joinsOperationHead, writeOperationJson } from '../../../../api/http/write-operation-answer';

/** A response that records the one `writeHead` call and the body it ended with. */
function headRecorder(heldRateLimits?: { policy: string; state: string }) {
  const calls: Array<[number, unknown]> = [];
  let body: string | undefined;
  const res = {
    locals: { requestId: 'req-1', route: '/v1/jobs', heldRateLimits },
    writeHead: (status: number, head: unknown) => calls.push([status, head]),
    end: (chunk: string) => {
      body = chunk;
    },
  };
  return { res: res as unknown as Response, calls, body: () => body };
}

const FIXED = [
  'Content-Security-Policy',
  "default-src 'none';frame-ancestors 'none'",
  'Strict-Transport-Security',
  'max-age=31536000; includeSubDomains',
  'X-Content-Type-Options',
  'nosniff',
  'X-Frame-Options',
  'DENY',
  'Cache-Control',
  'no-store',
  'X-Request-Id',
  'req-1',
];

describe('writeOperationJson (an operation answer’s head in one call)', () => {
  it('a 202 with its own headers and held RateLimit fields: one head with each field once, then the JSON body', () => {
    const { res, calls, body } = headRecorder({ policy: '"subject";q=60;w=60', state: '"subject";r=59;t=60' });
    writeOperationJson(res, 202, { id: 'é' }, { Location: '/v1/jobs/j', 'Retry-After': '2' });
    expect(calls).to.deep.equal([
      [
        202,
        [
          ...FIXED,
          'RateLimit-Policy',
          '"subject";q=60;w=60',
          'RateLimit',
          '"subject";r=59;t=60',
          'Location',
          '/v1/jobs/j',
          'Retry-After',
          '2',
          'Content-Type',
          'application/json; charset=utf-8',
          'Content-Length',
          '11',
        ],
      ],
    ]);
    expect(body()).to.equal('{"id":"é"}');
  });

  it('no RateLimit field announced and no headers of its own: the fixed head, the type and the length only', () => {
    const { res, calls } = headRecorder({ policy: '', state: '' });
    writeOperationJson(res, 200, { ok: true });
    expect(calls[0][1]).to.deep.equal([...FIXED, 'Content-Type', 'application/json; charset=utf-8', 'Content-Length', '11']);
  });
});

describe('joinsOperationHead', () => {
  it('no headers, or only names the head lacks: they join it', () => {
    expect(joinsOperationHead(undefined)).to.equal(true);
    expect(joinsOperationHead({ Location: '/v1/jobs/j', 'Idempotent-Replayed': 'true' })).to.equal(true);
  });

  it('a name the head has, in any case: it does not join (the headers are then set one by one)', () => {
    expect(joinsOperationHead({ 'cache-control': 'private, max-age=5' })).to.equal(false);
    expect(joinsOperationHead({ 'X-REQUEST-ID': 'x' })).to.equal(false);
  });
});
