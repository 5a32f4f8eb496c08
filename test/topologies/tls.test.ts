import { expect } from 'chai';
import { clusterVars, type Deployment, deploymentEnv, sentinelVars, startDeployment, tlsNodeVars, usageOf } from '../support/deployment';
import { newSubject } from '../support/harness';
import { pollJob } from '../support/job-polling';
import { submitPrompt } from '../support/job-submission';
import {
  startRedisCluster,
  startRedisSentinelSet,
  startTlsRedis,
  type TestRedisCluster,
  type TestRedisSentinelSet,
  type TestTlsRedis,
} from '../testkit/redis-topologies';
import { commonFlows } from './support/common-flows';

describe('built API and worker processes on a TLS-only Redis node with an ACL user (rediss:// and REDIS_TLS_CA_FILE)', function () {
  this.timeout(60_000);
  let node: TestTlsRedis;
  let deployment: Deployment;

  before(async () => {
    node = await startTlsRedis();
    deployment = await startDeployment(deploymentEnv(tlsNodeVars(node), 'topo-tls:'));
  });
  after(async () => {
    await deployment?.stop();
    await node?.stop();
  });

  commonFlows(() => deployment);
});

describe('REDIS_TLS=true with REDIS_TLS_CA_FILE on a Cluster and a Sentinel set that speak only TLS', function () {
  this.timeout(60_000);
  let cluster: TestRedisCluster | undefined;
  let set: TestRedisSentinelSet | undefined;
  let deployment: Deployment | undefined;
  afterEach(async () => {
    await deployment?.stop();
    deployment = undefined;
  });
  after(async () => Promise.all([cluster?.stop(), set?.stop()]));

  /** Links on one API, submits a job on the other, and sees it succeed, charged once. */
  async function jobRoundTrip(dep: Deployment): Promise<void> {
    const { token } = await dep.a.link(newSubject());
    const created = await submitPrompt(dep.b, token, 'over TLS');
    expect(created.status, created.text).to.equal(202);
    expect((await pollJob(dep.a, token, created.body.id, (job) => job.status === 'succeeded')).result).to.include({ summary: 'over TLS' });
    expect(await usageOf(dep.b, token)).to.deep.equal({ jobs_charged: 1, credits_spent: 1, credits_refunded: 0 });
  }

  it('on a TLS cluster with an ACL user: a job accepted by one API runs to success, charged once', async () => {
    cluster = await startRedisCluster({ username: 'connector', password: 'tls-cluster-password', tls: true });
    deployment = await startDeployment(deploymentEnv(clusterVars(cluster), 'topo-tls-cluster:'));
    expect(deployment.env).to.include({ REDIS_TLS: 'true', REDIS_TLS_CA_FILE: cluster.caFile });
    await jobRoundTrip(deployment);
  });

  it('on a TLS Sentinel set (sentinels too) with an ACL user and a sentinel password: the same round trip', async () => {
    set = await startRedisSentinelSet({
      username: 'connector',
      password: 'tls-sentinel-password',
      sentinelPassword: 'tls-sentinel-secret',
      tls: true,
    });
    deployment = await startDeployment(deploymentEnv(sentinelVars(set), 'topo-tls-sentinel:'));
    expect(deployment.env).to.include({ REDIS_TLS: 'true', REDIS_TLS_CA_FILE: set.caFile });
    await jobRoundTrip(deployment);
  });
});
