import { Writable } from 'node:stream';
import { expect } from 'chai';
import { createLogger } from '../../../../../shared/platform/logging/logger';

/** A logger at `level` writing to memory, and the parsed lines it wrote. */
function capture(level = 'info') {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(JSON.parse(chunk.toString()));
      callback();
    },
  });
  return { logger: createLogger(level, 'connector-api', sink), lines };
}

describe('createLogger', () => {
  it('one JSON line per entry: the service name, an ISO time, the level and the message', () => {
    const { logger, lines } = capture();
    logger.info({ job_id: 'job-1' }, 'job started');
    expect(lines).to.have.length(1);
    expect(lines[0]).to.include({ service: 'connector-api', name: 'connector-api', level: 30, msg: 'job started', job_id: 'job-1' });
    expect(new Date(lines[0].time as string).toISOString()).to.equal(lines[0].time);
  });

  it('credentials are removed, wherever the redaction paths name them', () => {
    const { logger, lines } = capture();
    logger.info({
      req: { headers: { authorization: 'Bearer T0KEN', 'x-link-secret': 'L1NK', accept: 'application/json' } },
      token: 'T0KEN',
      config: { linkSecret: 'L1NK', redisUrl: 'redis://:PW@cache', webhooks: { secret: 'whsec_S', url: 'https://hooks.example' } },
      password: 'PW',
    });
    const text = JSON.stringify(lines[0]);
    for (const secret of ['T0KEN', 'L1NK', 'PW', 'whsec_S']) expect(text, secret).to.not.contain(secret);
    expect(lines[0]).to.deep.include({ req: { headers: { accept: 'application/json' } } });
    expect((lines[0].config as { webhooks: { url: string } }).webhooks.url).to.equal('https://hooks.example');
  });

  it('entries below the level are not written', () => {
    const { logger, lines } = capture('warn');
    logger.info('dropped');
    logger.warn('kept');
    expect(lines.map((line) => line.msg)).to.deep.equal(['kept']);
  });
});
