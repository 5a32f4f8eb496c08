import { EventEmitter } from 'node:events';
import { expect } from 'chai';
import type { Request, Response } from 'express';
import { httpMetrics } from '../../../../api/middleware/http-metrics';
import type { Metrics } from '../../../../shared/platform/metrics/metrics';

/** Sends one request through the middleware, finishing it with `status`; returns what the metrics received. */
function measure(method: string, status: number, finish = true) {
  const counted: unknown[] = [];
  const timed: Array<[unknown, number]> = [];
  const metrics = {
    httpRequests: { inc: (labels: unknown) => counted.push(labels) },
    httpDuration: { observe: (labels: unknown, seconds: number) => timed.push([labels, seconds]) },
  } as unknown as Metrics;
  const res = Object.assign(new EventEmitter(), { locals: { route: '/v1/jobs/{id}' }, statusCode: status });
  let nexts = 0;
  httpMetrics(metrics)({ method } as Request, res as unknown as Response, () => nexts++);
  if (finish) res.emit('finish');
  return { counted, timed, nexts };
}

describe('httpMetrics', () => {
  it('an answered request: counted once by method, route template and status, and timed in seconds', () => {
    const { counted, timed, nexts } = measure('GET', 200);
    expect(nexts).to.equal(1);
    expect(counted).to.deep.equal([{ method: 'GET', route: '/v1/jobs/{id}', status: '200' }]);
    expect(timed).to.have.length(1);
    expect(timed[0][0]).to.deep.equal({ method: 'GET', route: '/v1/jobs/{id}' });
    expect(timed[0][1]).to.be.within(0, 1);
  });

  it('an unknown method: counted as OTHER, so the label set stays bounded', () => {
    expect(measure('BREW', 405).counted).to.deep.equal([{ method: 'OTHER', route: '/v1/jobs/{id}', status: '405' }]);
  });

  it('a request not yet answered: nothing counted', () => {
    expect(measure('GET', 200, false).counted).to.deep.equal([]);
  });
});
