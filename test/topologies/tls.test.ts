import { startTlsRedis, type TestTlsRedis } from '../support/redis-topologies';
import { commonFlows } from './support/common-flows';
import { deploymentEnv, startDeployment, tlsNodeVars, type Deployment } from './support/deployment';

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
