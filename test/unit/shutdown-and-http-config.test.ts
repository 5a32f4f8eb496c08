import { expect } from 'chai';
import { loadConfig } from '../../shared/platform/config/config';
import { ConfigError } from '../../shared/platform/errors/config-error';
import { BASE_ENV } from '../support/harness';

const REQUIRED = {
  CONNECTOR_SECRET: BASE_ENV.CONNECTOR_SECRET,
  PUBLIC_URL: BASE_ENV.PUBLIC_URL,
  DASHBOARD_URL: BASE_ENV.DASHBOARD_URL,
  LINK_SECRET: BASE_ENV.LINK_SECRET,
};

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env, 'api');
    return [];
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as ConfigError).problems.map((p) => p.name);
  }
}

describe('shutdown and HTTP limit settings', () => {
  it('default to no shutdown delay, a 75 s keep-alive, 20 s for headers, 30 s per request and 16 KiB of headers', () => {
    const config = loadConfig(REQUIRED, 'api');
    expect(config.shutdownDelayMs).to.equal(0);
    expect(config.http).to.deep.equal({
      keepAliveTimeoutMs: 75_000,
      headersTimeoutMs: 20_000,
      requestTimeoutMs: 30_000,
      maxHeaderBytes: 16_384,
    });
  });

  it('read SHUTDOWN_DELAY_MS and every HTTP_* variable', () => {
    const config = loadConfig(
      {
        ...REQUIRED,
        SHUTDOWN_DELAY_MS: '5000',
        HTTP_KEEP_ALIVE_TIMEOUT_MS: '90000',
        HTTP_HEADERS_TIMEOUT_MS: '5000',
        HTTP_REQUEST_TIMEOUT_MS: '6000',
        HTTP_MAX_HEADER_BYTES: '8192',
      },
      'api',
    );
    expect(config.shutdownDelayMs).to.equal(5000);
    expect(config.http).to.deep.equal({ keepAliveTimeoutMs: 90_000, headersTimeoutMs: 5000, requestTimeoutMs: 6000, maxHeaderBytes: 8192 });
  });

  it('refuse a request timeout shorter than the headers timeout, naming HTTP_REQUEST_TIMEOUT_MS', () => {
    expect(problemsOf({ ...REQUIRED, HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '4999' })).to.deep.equal([
      'HTTP_REQUEST_TIMEOUT_MS',
    ]);
    expect(problemsOf({ ...REQUIRED, HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '5000' })).to.deep.equal([]);
  });

  it('refuse values out of range: a negative delay, a keep-alive under a second, header limits outside 4-64 KiB', () => {
    expect(problemsOf({ ...REQUIRED, SHUTDOWN_DELAY_MS: '-1' })).to.deep.equal(['SHUTDOWN_DELAY_MS']);
    expect(problemsOf({ ...REQUIRED, HTTP_KEEP_ALIVE_TIMEOUT_MS: '999' })).to.deep.equal(['HTTP_KEEP_ALIVE_TIMEOUT_MS']);
    expect(problemsOf({ ...REQUIRED, HTTP_MAX_HEADER_BYTES: '4095' })).to.deep.equal(['HTTP_MAX_HEADER_BYTES']);
    expect(problemsOf({ ...REQUIRED, HTTP_MAX_HEADER_BYTES: '65537' })).to.deep.equal(['HTTP_MAX_HEADER_BYTES']);
  });
});
