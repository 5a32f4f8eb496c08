import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../../../../shared/platform/config/config';
import { parseEndpoints } from '../../../../../shared/platform/config/redis-settings';
import { configProblemNames, REQUIRED_ENV as REQUIRED } from '../../../../support/config-problems';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

/** The variables `loadConfig` refuses in the required variables with `env` over them. */
const problemsOf = (env: Record<string, string>, role: 'api' | 'worker' = 'api') => configProblemNames({ ...REQUIRED, ...env }, role);

describe('Redis topology configuration', () => {
  let dir: string;
  let caFile: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'redis-config-'));
    caFile = path.join(dir, 'ca.pem');
    writeFileSync(caFile, PEM);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('REDIS_URL selects one node; a rediss:// URL turns TLS on and a CA file adds the CAs to trust', () => {
    expect(loadConfig({ ...REQUIRED, REDIS_URL: 'redis://u:p@127.0.0.1:6379' }).redis).to.deep.equal({
      topology: { mode: 'single', url: 'redis://u:p@127.0.0.1:6379' },
      tls: false,
    });
    const tls = loadConfig({ ...REQUIRED, REDIS_URL: 'rediss://redis.example.com:6380', REDIS_TLS_CA_FILE: caFile }).redis;
    expect(tls).to.deep.include({ tls: true, ca: PEM });
  });

  it('REDIS_SENTINELS with REDIS_SENTINEL_NAME selects Sentinel, with the shared credentials and TLS', () => {
    const config = loadConfig({
      ...REQUIRED,
      REDIS_SENTINELS: 's1.example.com:26379, 10.0.0.2:26379,[::1]:26380',
      REDIS_SENTINEL_NAME: 'mymaster',
      REDIS_SENTINEL_PASSWORD: 'sp',
      REDIS_USERNAME: 'app',
      REDIS_PASSWORD: 'pw',
      REDIS_TLS: 'true',
    });
    expect(config.redis).to.deep.equal({
      topology: {
        mode: 'sentinel',
        name: 'mymaster',
        sentinelPassword: 'sp',
        sentinels: [
          { host: 's1.example.com', port: 26379 },
          { host: '10.0.0.2', port: 26379 },
          { host: '::1', port: 26380 },
        ],
      },
      username: 'app',
      password: 'pw',
      tls: true,
    });
  });

  it('REDIS_CLUSTER_NODES selects Cluster; shards, replicas and the wait are read with their defaults', () => {
    const config = loadConfig({
      ...REQUIRED,
      REDIS_CLUSTER_NODES: '127.0.0.1:7000,127.0.0.1:7001',
      JOB_QUEUE_SHARDS: '3',
      REDIS_MIN_REPLICAS: '1',
    });
    expect(config.redis?.topology).to.deep.equal({
      mode: 'cluster',
      nodes: [
        { host: '127.0.0.1', port: 7000 },
        { host: '127.0.0.1', port: 7001 },
      ],
    });
    expect(config).to.include({ jobQueueShards: 3, redisMinReplicas: 1, redisWaitMs: 500 });
  });

  it('two modes at once are refused, naming both variables', () => {
    expect(problemsOf({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_CLUSTER_NODES: '127.0.0.1:7000' })).to.deep.equal([
      'REDIS_URL, REDIS_CLUSTER_NODES',
    ]);
    expect(problemsOf({ REDIS_SENTINELS: 'a:1', REDIS_SENTINEL_NAME: 'm', REDIS_CLUSTER_NODES: 'b:2' })).to.deep.equal([
      'REDIS_SENTINELS, REDIS_CLUSTER_NODES',
    ]);
  });

  it('Sentinel without REDIS_SENTINEL_NAME is refused by that name', () => {
    expect(problemsOf({ REDIS_SENTINELS: '127.0.0.1:26379' })).to.deep.equal(['REDIS_SENTINEL_NAME']);
  });

  it('a bad host:port is refused by the variable that holds it, without echoing it', () => {
    for (const bad of ['127.0.0.1', 'host:0', 'host:99999', 'ho st:1', ':6379', 'user:secret@host:1', ',']) {
      expect(problemsOf({ REDIS_CLUSTER_NODES: bad }), bad).to.deep.equal(['REDIS_CLUSTER_NODES']);
    }
    expect(problemsOf({ REDIS_SENTINELS: 'x', REDIS_SENTINEL_NAME: 'm' })).to.deep.equal(['REDIS_SENTINELS']);
    try {
      loadConfig({ ...REQUIRED, REDIS_CLUSTER_NODES: 'user:hunter2@host:1' });
      expect.fail('should have thrown');
    } catch (error) {
      expect((error as Error).message)
        .to.contain('REDIS_CLUSTER_NODES')
        .and.not.contain('hunter2');
    }
    expect(parseEndpoints('a:1,,b:2')).to.deep.equal([
      { host: 'a', port: 1 },
      { host: 'b', port: 2 },
    ]);
  });

  it('an unreadable or non-PEM CA file, or a CA file without TLS, is refused by REDIS_TLS_CA_FILE', () => {
    const text = path.join(dir, 'not-a-cert.txt');
    writeFileSync(text, 'hello');
    expect(problemsOf({ REDIS_URL: 'rediss://h:1', REDIS_TLS_CA_FILE: path.join(dir, 'missing.pem') })).to.deep.equal([
      'REDIS_TLS_CA_FILE',
    ]);
    expect(problemsOf({ REDIS_URL: 'rediss://h:1', REDIS_TLS_CA_FILE: text })).to.deep.equal(['REDIS_TLS_CA_FILE']);
    expect(problemsOf({ REDIS_URL: 'redis://h:1', REDIS_TLS_CA_FILE: caFile })).to.deep.equal(['REDIS_TLS_CA_FILE']);
    expect(problemsOf({ REDIS_CLUSTER_NODES: 'h:1', REDIS_TLS_CA_FILE: caFile })).to.deep.equal(['REDIS_TLS_CA_FILE']);
    expect(problemsOf({ REDIS_CLUSTER_NODES: 'h:1', REDIS_TLS: 'true', REDIS_TLS_CA_FILE: caFile })).to.deep.equal([]);
  });

  it('numbers out of range, a non-boolean REDIS_TLS and a key prefix with braces are refused by name', () => {
    expect(problemsOf({ JOB_QUEUE_SHARDS: '0' })).to.deep.equal(['JOB_QUEUE_SHARDS']);
    expect(problemsOf({ JOB_QUEUE_SHARDS: '65' })).to.deep.equal(['JOB_QUEUE_SHARDS']);
    expect(problemsOf({ REDIS_MIN_REPLICAS: '-1' })).to.deep.equal(['REDIS_MIN_REPLICAS']);
    expect(problemsOf({ REDIS_WAIT_MS: '5' })).to.deep.equal(['REDIS_WAIT_MS']);
    expect(problemsOf({ REDIS_CLUSTER_NODES: 'h:1', REDIS_TLS: 'maybe' })).to.deep.equal(['REDIS_TLS']);
    expect(problemsOf({ REDIS_KEY_PREFIX: 'app:{x}:' })).to.deep.equal(['REDIS_KEY_PREFIX']);
  });

  it('the worker accepts any of the three modes and asks for one when none is set', () => {
    expect(problemsOf({}, 'worker')).to.deep.equal(['REDIS_URL']);
    expect(problemsOf({ REDIS_CLUSTER_NODES: '127.0.0.1:7000' }, 'worker')).to.deep.equal([]);
    expect(problemsOf({ REDIS_SENTINELS: '127.0.0.1:26379', REDIS_SENTINEL_NAME: 'm' }, 'worker')).to.deep.equal([]);
  });
});
