import { expect } from 'chai';
import { Counter, Histogram, Registry } from 'prom-client';
import { deltas, parseExposition, parseLabels, sumOf } from '../support/prometheus-text';

describe('the Prometheus text parser used by the ops tests', () => {
  it('reads samples, labels, types and help from a prom-client page', async () => {
    const registry = new Registry();
    const counter = new Counter({ name: 't_total', help: 'A test counter.', labelNames: ['route'], registers: [registry] });
    new Histogram({ name: 't_seconds', help: 'h', buckets: [0.1, 1], registers: [registry] }).observe(0.5);
    counter.inc({ route: '/v1/jobs/{id}' }, 2);
    counter.inc({ route: 'quote " back \\ slash\nnewline' });
    const page = parseExposition(await registry.metrics());
    expect(page.types.get('t_total')).to.equal('counter');
    expect(page.types.get('t_seconds')).to.equal('histogram');
    expect(page.help.get('t_total')).to.equal('A test counter.');
    expect(sumOf(page, 't_total', { route: '/v1/jobs/{id}' })).to.equal(2);
    expect(sumOf(page, 't_total', { route: 'quote " back \\ slash\nnewline' })).to.equal(1);
    expect(page.samples.filter((s) => s.name === 't_seconds_bucket').map((s) => [s.labels.le, s.value])).to.deep.equal([
      ['0.1', 0],
      ['1', 1],
      ['+Inf', 1],
    ]);
  });

  it('reads special values in any letter case and refuses a line that is not a sample', () => {
    const page = parseExposition('a NaN\nb Nan\nc +Inf\nd -inf\ne 1.5e3 1700000000000\n');
    expect(page.samples.map((s) => s.value)).to.deep.equal([NaN, NaN, Infinity, -Infinity, 1500]);
    expect(() => parseExposition('metric{a="1"} not-a-number')).to.throw(/not a sample value/);
    expect(() => parseExposition('{a="1"} 1')).to.throw(/not a sample/);
    expect(() => parseLabels('a="unterminated')).to.throw(/unterminated/);
    expect(() => parseLabels('a="1",a="2"')).to.throw(/duplicate/);
  });

  it('reports only the series that moved between two scrapes, counting new series from zero', () => {
    const before = parseExposition('x_total{k="a"} 1\nx_total{k="b"} 5\ny 3\n');
    const after = parseExposition('x_total{k="a"} 4\nx_total{k="b"} 5\nx_total{k="c"} 2\ny 9\n');
    expect([...deltas(before, after, ['x_total'])]).to.deep.equal([
      ['x_total{k="a"}', 3],
      ['x_total{k="c"}', 2],
    ]);
  });
});
