import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import Redis, { Cluster, type RedisOptions } from 'ioredis';
import { measurement } from '../support/measurement';
import {
  infoFields,
  redisCommand,
  startRedisCluster,
  startRedisSentinelSet,
  startTlsRedis,
  type TestRedisCluster,
  type TestRedisSentinelSet,
  type TestTlsRedis,
} from '../testkit/redis-topologies';

const USER = 'connector';
const PASSWORD = 'topology-test-password';

/** Why a connection attempt with `options` failed: the server's refusal if it gave one (undefined if PING worked). */
async function refusal(options: RedisOptions): Promise<Error | undefined> {
  const client = new Redis({
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 2000,
    commandTimeout: 2000,
    enableReadyCheck: false,
    ...options,
  });
  const emitted: Error[] = [];
  client.on('error', (error: Error) => emitted.push(error));
  try {
    await client.connect();
    await client.ping();
    return undefined;
  } catch (error) {
    return emitted[0] ?? (error as Error);
  } finally {
    client.disconnect();
  }
}

describe('the 6-node Redis Cluster fixture (ACL user)', function () {
  this.timeout(60_000);
  let cluster: TestRedisCluster;
  let client: Cluster;

  before(async () => {
    const started = Date.now();
    cluster = await startRedisCluster({ username: USER, password: PASSWORD });
    measurement(`      cluster ready in ${Date.now() - started} ms`);
    client = new Cluster(
      cluster.seeds.split(',').map((seed) => ({ host: '127.0.0.1', port: Number(seed.split(':')[1]) })),
      {
        redisOptions: { username: USER, password: PASSWORD },
      },
    );
  });
  after(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  it('has three primaries covering all 16384 slots and three synced replicas, one under each primary', async () => {
    const nodes = await cluster.nodes();
    const primaries = nodes.filter((node) => node.role === 'primary');
    const replicas = nodes.filter((node) => node.role === 'replica');
    expect(primaries).to.have.length(3);
    expect(replicas).to.have.length(3);
    expect(new Set(replicas.map((node) => node.primaryId))).to.deep.equal(new Set(primaries.map((node) => node.id)));
    expect(primaries.flatMap((node) => node.slots).reduce((sum, [from, to]) => sum + to - from + 1, 0)).to.equal(16384);
    expect(
      cluster.seeds
        .split(',')
        .map((seed) => Number(seed.split(':')[1]))
        .sort(),
    ).to.deep.equal([...cluster.ports].sort());
    for (const replica of replicas) {
      expect(infoFields(await redisCommand(replica.port, cluster.access, ['INFO', 'replication']))).to.include({
        role: 'slave',
        master_link_status: 'up',
      });
    }
  });

  it('refuses a connection without the ACL user, and primaryForKey names the node that serves a key without a redirect', async () => {
    const port = cluster.ports[0];
    expect((await refusal({ port }))?.message).to.match(/NOAUTH|WRONGPASS/);
    for (const key of ['{jobs}:probe', 'another-key', '{user-1}:x']) {
      await client.set(key, 'value');
      const owner = await cluster.primaryForKey(key);
      expect(await redisCommand(owner.port, cluster.access, ['GET', key])).to.equal('value');
      const other = (await cluster.nodes()).find((node) => node.role === 'primary' && node.id !== owner.id)!;
      const redirected = await redisCommand(other.port, cluster.access, ['GET', key]).catch((error: Error) => error.message);
      expect(redirected).to.match(/^MOVED /);
    }
  });

  it('a killed primary is replaced by its replica, a write acknowledged by WAIT 1 survives, and the node started again becomes its replica', async () => {
    const key = '{failover}:kept';
    await client.set(key, 'before the kill');
    const owner = await cluster.primaryForKey(key);
    expect(await redisCommand(owner.port, cluster.access, ['WAIT', 1, 1000])).to.equal(1);
    const replica = (await cluster.nodes()).find((node) => node.primaryId === owner.id)!;
    const killedAt = await cluster.killNode(owner.port);
    const { port, promotedAt } = await cluster.waitForPromotion(owner.port);
    measurement(`      promoted ${promotedAt - killedAt} ms after the kill`);
    expect(port).to.equal(replica.port);
    expect((await cluster.primaryForKey(key)).port).to.equal(replica.port);
    expect(await client.get(key)).to.equal('before the kill');
    await client.set(key, 'after the failover');
    expect(await redisCommand(replica.port, cluster.access, ['GET', key])).to.equal('after the failover');
    await cluster.restartNode(owner.port);
    expect((await cluster.nodes()).find((node) => node.port === owner.port)).to.include({ role: 'replica', primaryId: replica.id });
    expect(await redisCommand(replica.port, cluster.access, ['WAIT', 1, 1000])).to.equal(1);
  });
});

describe('the Sentinel set fixture (ACL user, sentinel password)', function () {
  this.timeout(60_000);
  let set: TestRedisSentinelSet;

  before(async () => {
    const started = Date.now();
    set = await startRedisSentinelSet({ username: USER, password: PASSWORD, sentinelPassword: 'sentinel-test-password' });
    measurement(`      sentinel set ready in ${Date.now() - started} ms`);
  });
  after(async () => set?.stop());

  it('every sentinel names the first node as primary, the second replicates it, and sentinels want their password', async () => {
    expect(await set.primaryPort()).to.equal(set.dataPorts[0]);
    expect(infoFields(await redisCommand(set.dataPorts[1], set.access, ['INFO', 'replication']))).to.include({
      role: 'slave',
      master_port: String(set.dataPorts[0]),
    });
    expect(set.sentinels.split(',')).to.have.length(3);
    expect((await refusal({ port: set.sentinelPorts[0] }))?.message).to.match(/NOAUTH/);
  });

  it('a SIGKILLed primary is replaced by the replica; a client through the sentinels reads what WAIT 1 acknowledged, writes again, and the old primary returns as replica', async () => {
    const client = new Redis({
      sentinels: set.sentinelPorts.map((port) => ({ host: '127.0.0.1', port })),
      name: set.name,
      sentinelPassword: set.sentinelPassword,
      username: USER,
      password: PASSWORD,
    });
    client.on('error', () => {});
    try {
      await client.set('kept', 'before the kill');
      expect(await client.wait(1, 1000)).to.equal(1);
      const { port: killed, killedAt } = await set.killPrimary();
      expect(killed).to.equal(set.dataPorts[0]);
      const { port, promotedAt } = await set.waitForPromotion();
      measurement(`      promoted ${promotedAt - killedAt} ms after the kill`);
      expect(port).to.equal(set.dataPorts[1]);
      expect(await set.primaryPort()).to.equal(set.dataPorts[1]);
      expect(await client.get('kept')).to.equal('before the kill');
      await client.set('kept', 'after the failover');
      expect(await redisCommand(port, set.access, ['GET', 'kept'])).to.equal('after the failover');
      await set.restartKilled();
      expect(infoFields(await redisCommand(killed, set.access, ['INFO', 'replication']))).to.include({
        role: 'slave',
        master_port: String(port),
      });
      expect(await client.wait(1, 1000)).to.equal(1);
    } finally {
      client.disconnect();
    }
  });
});

describe('the TLS node fixture', function () {
  this.timeout(30_000);
  let node: TestTlsRedis;

  before(async () => {
    const started = Date.now();
    node = await startTlsRedis();
    measurement(`      TLS node ready in ${Date.now() - started} ms`);
  });
  after(async () => node?.stop());

  it('answers PING over TLS with the URL and the CA', async () => {
    const url = new URL(node.url);
    expect(url.protocol).to.equal('rediss:');
    expect(decodeURIComponent(url.username)).to.equal(node.username);
    const client = new Redis(node.url, {
      tls: { ca: readFileSync(node.caFile) },
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    try {
      await client.connect();
      expect(await client.ping()).to.equal('PONG');
      expect(await client.acl('WHOAMI')).to.equal(node.username);
    } finally {
      client.disconnect();
    }
  });

  it('refuses a plain connection, a wrong password, the default user, and a client that trusts another CA', async () => {
    const tls = { ca: readFileSync(node.caFile) };
    const plain = await refusal({ port: node.port, username: node.username, password: node.password });
    expect(plain, 'a plain connection').to.be.instanceOf(Error);
    expect((await refusal({ port: node.port, tls, username: node.username, password: `${node.password}x` }))?.message).to.match(
      /WRONGPASS/,
    );
    expect((await refusal({ port: node.port, tls }))?.message).to.match(/NOAUTH/);
    const untrusted = await refusal({
      port: node.port,
      tls: { ca: readFileSync(node.otherCaFile) },
      username: node.username,
      password: node.password,
    });
    expect(untrusted?.message).to.match(/certificate/i);
  });
});

describe('the Cluster and Sentinel fixtures with TLS on every process', function () {
  this.timeout(60_000);
  let cluster: TestRedisCluster | undefined;
  let set: TestRedisSentinelSet | undefined;
  after(async () => Promise.all([cluster?.stop(), set?.stop()]));

  it('a TLS cluster serves a client that trusts its CA and refuses a plain connection', async () => {
    cluster = await startRedisCluster({ username: USER, password: PASSWORD, tls: true });
    const ca = readFileSync(cluster.caFile!);
    const client = new Cluster(
      cluster.ports.map((port) => ({ host: '127.0.0.1', port })),
      { redisOptions: { username: USER, password: PASSWORD, tls: { ca } } },
    );
    try {
      for (const key of ['a', 'b', 'c', '{jobs}']) await client.set(key, key);
      expect(await Promise.all(['a', 'b', 'c', '{jobs}'].map((key) => client.get(key)))).to.deep.equal(['a', 'b', 'c', '{jobs}']);
    } finally {
      client.disconnect();
    }
    expect(await refusal({ port: cluster.ports[0], username: USER, password: PASSWORD }), 'a plain connection').to.be.instanceOf(Error);
  });

  it('a TLS Sentinel set serves a client that trusts its CA on sentinels and data nodes, and refuses a plain connection', async () => {
    set = await startRedisSentinelSet({ username: USER, password: PASSWORD, sentinelPassword: 'sentinel-test-password', tls: true });
    const ca = readFileSync(set.caFile!);
    const client = new Redis({
      sentinels: set.sentinelPorts.map((port) => ({ host: '127.0.0.1', port })),
      name: set.name,
      sentinelPassword: set.sentinelPassword,
      username: USER,
      password: PASSWORD,
      tls: { ca },
      sentinelTLS: { ca },
      enableTLSForSentinelMode: true,
      lazyConnect: true,
    });
    try {
      await client.connect();
      await client.set('over-tls', 'yes');
      expect(await redisCommand(await set.primaryPort(), set.access, ['GET', 'over-tls'])).to.equal('yes');
    } finally {
      client.disconnect();
    }
    expect(
      await refusal({ port: set.sentinelPorts[0], password: set.sentinelPassword }),
      'a plain connection to a sentinel',
    ).to.be.instanceOf(Error);
  });
});
