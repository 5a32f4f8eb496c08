import { Writable } from 'node:stream';
import { expect } from 'chai';
import type { Request, Response } from 'express';
import pino from 'pino';
import { accessLog } from '../../../../api/middleware/access-log';

/** Logs one finished request at `level`; returns the parsed lines written. */
function logged(level: string, request: { method: string; url?: string; headers?: Record<string, string> }, route: string, status: number) {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(JSON.parse(chunk.toString()));
      callback();
    },
  });
  const logger = pino({ level }, sink);
  const res = { locals: { requestId: 'req-1', route }, statusCode: status };
  accessLog(logger)(request as Request, res as unknown as Response, 1_234_567);
  return lines;
}

describe('accessLog', () => {
  it('an answered request: one info line with exactly the request id, method, route, status and duration', () => {
    const lines = logged('info', { method: 'GET', url: '/v1/me?token=secret', headers: { authorization: 'Bearer secret' } }, '/v1/me', 200);
    expect(lines).to.have.length(1);
    const { level, req_id, method, route, status, duration_ms, msg } = lines[0];
    expect({ level, req_id, method, route, status, msg }).to.deep.equal({
      level: 30,
      req_id: 'req-1',
      method: 'GET',
      route: '/v1/me',
      status: 200,
      msg: 'request',
    });
    expect(duration_ms).to.equal(1.23);
    expect(JSON.stringify(lines[0])).to.not.contain('secret');
  });

  it('a 5xx: logged at warn, so it stays at LOG_LEVEL=warn', () => {
    expect(logged('warn', { method: 'POST' }, '/v1/jobs', 503).map((line) => line.level)).to.deep.equal([40]);
  });

  it('probe routes: at debug only, so they do not drown the log', () => {
    expect(logged('info', { method: 'GET' }, '/healthz', 200)).to.deep.equal([]);
    expect(logged('debug', { method: 'GET' }, '/readyz', 503).map((line) => line.level)).to.deep.equal([20]);
  });

  it('a level that drops every access line (error): nothing logged', () => {
    expect(logged('error', { method: 'GET' }, '/v1/me', 500)).to.deep.equal([]);
  });
});
