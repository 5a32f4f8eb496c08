import { expect } from 'chai';
import type { Request, Response } from 'express';
import { httpMetrics } from '../../../../api/middleware/http-metrics';
import type { Metrics } from '../../../../shared/platform/metrics/metrics';

/** Records one request answered with `status` in 25 ms; returns what the metrics received. */
function measure(method: string, status: number) {
  const counted: unknown[] = [];
  const timed: Array<[unknown, number]> = [];
  const metrics = {
    httpRequests: { inc: (labels: unknown) => counted.push(labels) },
    httpDuration: { observe: (labels: unknown, seconds: number) => timed.push([labels, seconds]) },
  } as unknown as Metrics;
  const res = { locals: { route: '/v1/jobs/{id}' }, statusCode: status };
  httpMetrics(metrics)({ method } as Request, res as unknown as Response, 25_000_000);
  return { counted, timed };
}

describe('httpMetrics', () => {
  it('an answered request: counted once by method, route template and status, and timed in seconds', () => {
    const { counted, timed } = measure('GET', 200);
    expect(counted).to.deep.equal([{ method: 'GET', route: '/v1/jobs/{id}', status: '200' }]);
    expect(timed).to.have.length(1);
    expect(timed[0][0]).to.deep.equal({ method: 'GET', route: '/v1/jobs/{id}' });
    expect(timed[0][1]).to.equal(0.025);
  });

  it('an unknown method: counted as OTHER, so the label set stays bounded', () => {
    expect(measure('BREW', 405).counted).to.deep.equal([{ method: 'OTHER', route: '/v1/jobs/{id}', status: '405' }]);
  });
});
